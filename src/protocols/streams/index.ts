// The token path's stream machinery every layer shares: pushed stages, one clock reading per
// delivery pass, writes coalesced per socket.
export * from './delivery-clock.js';
export * from './pushed-stream.js';
export * from './write-coalescer.js';
