export { instancePath, type CallContext, type EndpointHandler, type RequestContext, type RequestPlaneClient, type RequestPlaneServer } from './types.js';
export { TcpRequestPlaneServer, type TcpServerOptions } from './tcp-server.js';
export { NatsRequestPlaneServer, natsInstanceSubject } from './nats-plane.js';
export { LocalRequestPlaneServer, localHandler } from './local-plane.js';
export { MultiTransportClient, type RequestClientOptions } from './client.js';
export { advertiseHost, joinHostPort } from './advertise-host.js';
export type { TcpTls } from './tcp-tls.js';
export { CallHomeServer } from './call-home-server.js';
export { ENGINE_SHUTDOWN_MESSAGE, isWorkerLostDetail } from './engine-shutdown.js';
