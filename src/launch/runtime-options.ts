import { parseCommandLine, type Config } from '../config/index.js';
import { moduleLogger, type Logger } from '../observability/index.js';
import type { RuntimeOptions } from '../runtime/index.js';
import { natsTlsOptions, tcpTlsFiles } from './tls.js';

/**
 * The runtime settings of any process, frontend or worker: the same flags and env vars
 * (DYN_DISCOVERY_BACKEND, DYN_REQUEST_PLANE, DYN_EVENT_PLANE, ETCD_ENDPOINTS, NATS_SERVER, ...),
 * so one exported environment configures a whole deployment.
 */
export function runtimeOptionsFromConfig(config: Config, logger: Logger, onLeaseLost?: (err: Error) => void): RuntimeOptions {
  return {
    discovery: config.discoveryBackend,
    requestPlane: config.requestPlane,
    eventPlane: config.eventPlane,
    etcdEndpoints: etcdEndpoints(config),
    natsServer: config.natsServer,
    fileKvRoot: config.fileKv,
    podEnv: { POD_NAME: config.podName, POD_UID: config.podUid, POD_NAMESPACE: config.podNamespace },
    kubeconfig: config.kubeconfig,
    leaseTtlSecs: leaseTtlSecs(config, logger),
    tcpMaxMessageSize: config.tcpMaxMessageSize,
    advertiseHost: config.tcpRpcHost,
    bindHost: config.tcpRpcHost,
    tcpTls: tcpTls(config, logger),
    natsTls: natsTlsOptions(config),
    shutdownGraceMs: config.gracefulShutdownGracePeriodSecs * 1000,
    logger: moduleLogger(logger, 'runtime'),
    onLeaseLost,
  };
}

function tcpTls(config: Config, logger: Logger): RuntimeOptions['tcpTls'] {
  const tls = tcpTlsFiles(config);
  if (tls?.insecure) logger.warn('--tcp-tls-insecure: TCP request-plane listeners are dialed without verifying their certificates; for local development only');
  return tls;
}

/** ETCD_ENDPOINTS as a list. */
export function etcdEndpoints(config: Config): string[] {
  return config.etcdEndpoints.split(',').map((e) => e.trim()).filter(Boolean);
}

const DEFAULT_LEASE_TTL_SECS = 10;

/** ETCD_LEASE_TTL; upstream treats 0 as a mistake and falls back to its default with a warning. */
function leaseTtlSecs(config: Config, logger: Logger): number {
  if (config.etcdLeaseTtl > 0) return config.etcdLeaseTtl;
  logger.warn(`ETCD_LEASE_TTL=0 is not a usable lease TTL; using ${DEFAULT_LEASE_TTL_SECS} s`);
  return DEFAULT_LEASE_TTL_SECS;
}

/**
 * For workers written against the library (examples/echo-tensor-worker.mjs): the settings
 * `dynamo-ts mocker` would take from this environment, and the namespace it would register in.
 */
export function workerRuntimeFromEnv(
  env: Record<string, string | undefined>,
  logger: Logger,
  onLeaseLost?: (err: Error) => void,
): { options: RuntimeOptions; namespace: string } {
  const parsed = parseCommandLine(['mocker'], env);
  if (parsed.kind !== 'run') throw new Error('cannot read the runtime settings from the environment');
  return { options: runtimeOptionsFromConfig(parsed.config, logger, onLeaseLost), namespace: parsed.config.namespace || 'dynamo' };
}
