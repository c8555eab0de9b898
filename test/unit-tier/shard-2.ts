import { runUnitShard } from './shard.js';

runUnitShard(1, 2);
