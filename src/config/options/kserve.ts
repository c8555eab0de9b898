import type { OptionSpec } from '../option-spec.js';

/** Flags from the gRPC/KServe guide (seed 004) that upstream's frontend code does not define. */
const GUIDE_ONLY = ' (from the gRPC guide; upstream serves gRPC on --http-port)';

export const kserveOptions = [
  {
    key: 'kserveGrpcServer', flag: 'kserve-grpc-server', env: 'DYN_KSERVE_GRPC_SERVER', type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: false, default: false,
    help: 'Serve the KServe v2 gRPC API (on --http-port) instead of the OpenAI HTTP API',
  },
  {
    key: 'grpcMetricsPort', flag: 'grpc-metrics-port', env: 'DYN_GRPC_METRICS_PORT', type: 'int', min: 1, max: 65535, metavar: '<port>',
    group: 'KServe gRPC', scope: 'frontend', built: false, default: 8788,
    help: 'Port of the side HTTP server with /metrics in KServe gRPC mode',
  },
  {
    key: 'grpcInitialConnectionWindowSize', env: 'DYN_GRPC_INITIAL_CONNECTION_WINDOW_SIZE', type: 'int', min: 1, max: 4294967295,
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: 'HTTP/2 connection-level flow-control window in bytes (library default when unset)',
  },
  {
    key: 'grpcInitialStreamWindowSize', env: 'DYN_GRPC_INITIAL_STREAM_WINDOW_SIZE', type: 'int', min: 1, max: 4294967295,
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: 'HTTP/2 per-stream flow-control window in bytes (library default when unset)',
  },
  {
    key: 'grpcPort', flag: 'grpc-port', env: 'DYNAMO_GRPC_PORT', type: 'int', min: 1, max: 65535, metavar: '<port>',
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: `gRPC listen port${GUIDE_ONLY}`,
  },
  {
    key: 'grpcWorkers', flag: 'grpc-workers', env: 'DYNAMO_GRPC_WORKERS', type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: `gRPC worker threads${GUIDE_ONLY}`,
  },
  {
    key: 'useTls', flag: 'use-tls', env: 'DYN_GRPC_USE_TLS', envIsLocal: true, type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: false, default: false,
    help: `Serve gRPC over TLS with --cert-file and --key-file${GUIDE_ONLY}`,
  },
  {
    key: 'certFile', flag: 'cert-file', env: 'DYNAMO_TLS_CERT', type: 'path',
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: `TLS certificate for the gRPC listener${GUIDE_ONLY}`,
  },
  {
    key: 'keyFile', flag: 'key-file', env: 'DYNAMO_TLS_KEY', type: 'path',
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: `TLS private key for the gRPC listener${GUIDE_ONLY}`,
  },
  {
    key: 'kserveMode', flag: 'kserve-mode', env: 'DYN_KSERVE_MODE', envIsLocal: true, type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: false, default: false,
    help: `Alias of --kserve-grpc-server${GUIDE_ONLY}`,
  },
  {
    key: 'maxMessageSize', flag: 'max-message-size', env: 'DYNAMO_MAX_MESSAGE_SIZE', type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: false,
    help: `Maximum gRPC message size in bytes${GUIDE_ONLY}`,
  },
] as const satisfies readonly OptionSpec[];
