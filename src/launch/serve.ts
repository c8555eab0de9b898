import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../config/index.js';
import { buildMockVocabulary, MockerEngine } from '../engines/mocker/index.js';
import type { RunningGrpcFrontend } from '../frontends/grpc/index.js';
import type { HttpService } from '../frontends/http/index.js';
import { ModelManager } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import type { KvCacheEvent } from '../protocols/index.js';
import { KvRouterPolicy, type WorkerInstance } from '../router/index.js';
import { startFrontendServices } from './frontend-services.js';
import { mockerEngineOptions } from './mocker-options.js';
import { assertRouterStateSupported } from './router-state.js';
import { buildServedModel, loadConfiguredCard, parseEndpoint } from './served-model.js';

export interface RunningService {
  /** The bound HTTP port. */
  readonly port: number;
  readonly models: ModelManager;
  readonly http: HttpService;
  readonly engines: readonly MockerEngine[];
  /** The instance id of each engine, in the same order. */
  readonly instanceIds: readonly bigint[];
  /** The KServe gRPC frontend, with --kserve-grpc-server or --grpc-port. */
  readonly grpc?: RunningGrpcFrontend;
  stop(): Promise<void>;
}

/**
 * `serve` keeps everything in one process; discovery and planes that reach other processes belong
 * to `frontend` + `mocker`. Accepting them here and ignoring them would mislead.
 */
function assertSingleProcess(config: Config): void {
  const shared: [string, string, string][] = [
    ['--discovery-backend', config.discoveryBackend, 'mem'],
    ['--request-plane', config.requestPlane, 'inproc'],
    ['--response-plane', config.responsePlane, 'inproc'],
    ['--event-plane', config.eventPlane ?? 'inproc', 'inproc'],
  ];
  for (const [flag, value, only] of shared) {
    if (value !== only) {
      throw new ConfigError(
        `${flag} ${value} does not apply to 'dynamo-ts serve', which runs the frontend and its engines in one process (${flag} ${only}); run 'dynamo-ts frontend' and 'dynamo-ts mocker' for ${value}`,
      );
    }
  }
}

/** A random non-zero 63-bit id, shaped like upstream's lease-derived instance ids. */
function newInstanceId(): bigint {
  return (randomBytes(8).readBigUInt64BE() >> 1n) | 1n;
}

/**
 * `dynamo-ts serve`: the frontend and `--num-workers` in-process mocker engines, with in-memory
 * discovery and the in-process request plane.
 */
export async function startServe(config: Config, logger: Logger): Promise<RunningService> {
  assertSingleProcess(config);
  assertRouterStateSupported(config, 'inproc');
  const blockSize = config.kvCacheBlockSize ?? config.blockSize;
  const card = loadConfiguredCard(config, blockSize);
  const endpoint = parseEndpoint(config.endpoint ?? `dyn://${config.namespace || 'dynamo'}.backend.generate`);
  const model = buildServedModel(card, config, endpoint);
  const vocab = buildMockVocabulary(model.tokenTable);

  // In kv mode each engine's KV events feed the router's indexer under that engine's instance id.
  const policy = model.router.policy;
  const ids = Array.from({ length: config.numWorkers }, newInstanceId);
  const engines = ids.map((id) => {
    const onKvEvent = policy instanceof KvRouterPolicy ? (e: KvCacheEvent) => policy.applyKvEvent(id, e) : undefined;
    return new MockerEngine({ ...mockerEngineOptions(config, vocab, blockSize), onKvEvent });
  });
  const models = new ModelManager();
  models.add(model);

  const services = await startFrontendServices(config, models, logger);
  const { http, grpc } = services;
  const port = await http.listen();

  // Engines register after startup time, as a worker process would after loading its model.
  const register = (): void => {
    const instances: WorkerInstance[] = engines.map((engine, i) => ({
      id: ids[i]!,
      client: engine,
      capacity: () => ({
        kvUsedBlocks: engine.stats().kvActiveBlocks,
        kvTotalBlocks: engine.options.numGpuBlocks,
        maxNumBatchedTokens: engine.options.maxNumBatchedTokens,
      }),
    }));
    model.router.setInstances(instances);
    logger.info({ model: model.name, instances: instances.length }, 'model ready');
  };
  const startupTimer = config.startupTime ? setTimeout(register, config.startupTime * 1000) : undefined;
  if (!startupTimer) register();

  logger.info({ host: config.httpHost, port, model: model.name, workers: engines.length }, 'dynamo-ts serve listening');
  return {
    port,
    models,
    http,
    engines,
    instanceIds: ids,
    grpc,
    async stop() {
      clearTimeout(startupTimer);
      await services.stop();
      for (const engine of engines) engine.close();
    },
  };
}
