import { randomBytes } from 'node:crypto';
import type { Config } from '../config/index.js';
import { buildMockVocabulary, MockerEngine } from '../engines/mocker/index.js';
import { DEFAULT_HTTP_PATHS, HttpService } from '../frontends/http/index.js';
import { ModelManager } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import type { WorkerInstance } from '../router/index.js';
import { buildServedModel, loadConfiguredCard, parseEndpoint } from './served-model.js';

export interface RunningService {
  /** The bound HTTP port. */
  readonly port: number;
  readonly models: ModelManager;
  readonly http: HttpService;
  readonly engines: readonly MockerEngine[];
  stop(): Promise<void>;
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
  const blockSize = config.kvCacheBlockSize ?? config.blockSize;
  const card = loadConfiguredCard(config, blockSize);
  const endpoint = parseEndpoint(config.endpoint ?? `dyn://${config.namespace || 'dynamo'}.backend.generate`);
  const model = buildServedModel(card, config, endpoint);
  const vocab = buildMockVocabulary(model.tokenTable);

  const engines: MockerEngine[] = [];
  for (let i = 0; i < config.numWorkers; i++) {
    engines.push(
      new MockerEngine({
        vocab,
        numGpuBlocks: config.numGpuBlocksOverride,
        blockSize,
        maxNumSeqs: config.maxNumSeqs,
        maxNumBatchedTokens: config.maxNumBatchedTokens,
        enablePrefixCaching: config.enablePrefixCaching,
        enableChunkedPrefill: config.enableChunkedPrefill,
        watermark: config.watermark,
        speedupRatio: config.speedupRatio,
        decodeSpeedupRatio: config.decodeSpeedupRatio,
      }),
    );
  }
  const models = new ModelManager();
  models.add(model);

  const http = new HttpService(
    {
      host: config.httpHost,
      port: config.httpPort,
      bodyLimitMb: config.httpBodyLimitMb,
      overloadStatus: config.httpOverloadStatusCode,
      gracefulShutdownSecs: config.httpGracefulShutdownTimeoutSecs,
      forceIncludeUsage: config.enableForceIncludeUsage,
      contextWindow: config.contextWindow,
      maxOutputTokens: config.maxOutputTokens,
      paths: {
        chat: config.httpSvcChatPath ?? DEFAULT_HTTP_PATHS.chat,
        completions: config.httpSvcCmpPath ?? DEFAULT_HTTP_PATHS.completions,
        models: config.httpSvcModelsPath ?? DEFAULT_HTTP_PATHS.models,
        health: config.httpSvcHealthPath ?? DEFAULT_HTTP_PATHS.health,
        live: config.httpSvcLivePath ?? DEFAULT_HTTP_PATHS.live,
      },
      logger,
    },
    models,
  );
  const port = await http.listen();

  // Engines register after startup time, as a worker process would after loading its model.
  const register = (): void => {
    const instances: WorkerInstance[] = engines.map((engine) => ({ id: newInstanceId(), client: engine }));
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
    async stop() {
      clearTimeout(startupTimer);
      await http.shutdown();
      for (const engine of engines) engine.close();
    },
  };
}
