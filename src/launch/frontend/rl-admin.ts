// DYN_ENABLE_RL_ENDPOINTS: the RL admin facade on its own listener (--rl-port), fanning each op out
// through the frontend's runtime to the live `rl` endpoints of the namespace (--namespace, else
// `dynamo`, matched exactly as upstream's SDK does), optionally only those of DYN_RL_COMPONENT.
import type { Config } from '../../config/index.js';
import { RlAdminServer } from '../../frontends/http/index.js';
import { moduleLogger, type Logger } from '../../observability/index.js';
import type { KeyCheck } from '../../protocols/index.js';
import { RlClient, type DistributedRuntime } from '../../runtime/index.js';
import { tlsFiles } from '../tls.js';

/** The namespace RL admin ops go to: --namespace, else upstream's default. */
export function rlNamespace(config: Config): string {
  return config.namespace || 'dynamo';
}

export interface RunningRlAdmin {
  /** The bound port. */
  port: number;
  close(): Promise<void>;
}

/** Starts the facade when DYN_ENABLE_RL_ENDPOINTS is on; resolves once it listens. */
export async function startRlAdmin(config: Config, runtime: DistributedRuntime, keys: KeyCheck, logger: Logger): Promise<RunningRlAdmin | undefined> {
  if (!config.enableRlEndpoints) return undefined;
  const namespace = rlNamespace(config);
  const fanout = new RlClient({
    backend: runtime.discovery,
    requestClient: runtime.requestClient,
    namespace,
    components: config.rlComponent,
    requestTimeoutMs: config.rlRequestTimeoutSecs * 1000,
    logger: moduleLogger(logger, 'runtime'),
  });
  const server = new RlAdminServer({
    host: config.httpHost,
    port: config.rlPort,
    fanout,
    keys,
    logger: moduleLogger(logger, 'http'),
    tls: tlsFiles(config),
    bodyLimitMb: config.httpBodyLimitMb,
  });
  const port = await server.listen();
  logger.info({ host: config.httpHost, port, namespace, components: config.rlComponent }, 'RL admin listening');
  return { port, close: () => server.close() };
}
