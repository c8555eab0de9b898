export { SharedCachePool, hitsBeyond } from './shared-pool.js';
