import type { RuntimeOptions } from '../../src/runtime/index.js';

/** A runtime that stays inside the test process: in-memory discovery, in-process planes. */
export const IN_PROCESS_RUNTIME: RuntimeOptions = {
  discovery: 'mem',
  requestPlane: 'inproc',
  eventPlane: 'inproc',
  etcdEndpoints: [],
  natsServer: '',
  leaseTtlSecs: 10,
  tcpMaxMessageSize: 1 << 20,
  advertiseHost: '127.0.0.1',
};
