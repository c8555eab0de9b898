export { PUBLIC_TRACKING, TRACKING_KEY_BYTES, TrackingKey, type TrackingHash, type TrackingScope } from './tracking-hash.js';
