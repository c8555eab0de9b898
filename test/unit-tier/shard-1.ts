import { runUnitShard } from './shard.js';

runUnitShard(0, 2);
