import type { Config } from '../config/index.js';
import type { Logger } from '../observability/index.js';
import type { DiscoveryBackendName, EventPlaneName, RequestPlaneName, RuntimeOptions } from '../runtime/index.js';

/**
 * The runtime settings of any process, frontend or worker: the same flags and env vars
 * (DYN_DISCOVERY_BACKEND, DYN_REQUEST_PLANE, DYN_EVENT_PLANE, ETCD_ENDPOINTS, NATS_SERVER, ...),
 * so one exported environment configures a whole deployment.
 */
export function runtimeOptionsFromConfig(config: Config, logger: Logger, onLeaseLost?: (err: Error) => void): RuntimeOptions {
  return {
    discovery: config.discoveryBackend as DiscoveryBackendName,
    requestPlane: config.requestPlane as RequestPlaneName,
    eventPlane: config.eventPlane as EventPlaneName | undefined,
    etcdEndpoints: config.etcdEndpoints.split(',').map((e) => e.trim()).filter(Boolean),
    natsServer: config.natsServer,
    fileKvRoot: config.fileKv,
    leaseTtlSecs: config.leaseTtlSecs,
    tcpMaxMessageSize: config.tcpMaxMessageSize,
    advertiseHost: config.tcpRpcHost,
    logger,
    onLeaseLost,
  };
}
