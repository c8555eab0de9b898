export { startGrpcFrontend, type GrpcFrontendOptions, type RunningGrpcFrontend } from './start.js';
export { KserveGrpcServer, type KserveGrpcOptions } from './server.js';
export { loadProtos, LOADER_OPTIONS } from './proto.js';
