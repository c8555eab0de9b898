// The token path's stream machinery every layer shares: pushed stages, one clock reading per
// delivery pass, writes coalesced per socket, calls' signals reused once their call ended clean,
// iterables made without a computed-key literal.
export * from './call-signals.js';
export * from './delivery-clock.js';
export * from './iterable-of.js';
export * from './placed-list.js';
export * from './pushed-stream.js';
export * from './write-coalescer.js';
