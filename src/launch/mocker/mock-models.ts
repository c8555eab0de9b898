// What `dynamo-ts mocker --model-type` serves, by name: the simulated LLM (chat and completions) or
// one of the media mockers. Each entry says the card's model types, the per-instance handlers, and
// the capacity its card declares.
import type { Config } from '../../config/index.js';
import { buildMockVocabulary, DataParallelEngine, MockEmbeddingEngine, MockerEngine, MockImageEngine, MockVideoEngine } from '../../engines/mocker/index.js';
import { sharedTokenTable, type ModelDeploymentCard, type ModelTypeFlag } from '../../models/index.js';
import type { WorkerType } from '../../protocols/index.js';
import { engineHandler, kvEventPublisher, loadMetricsPublisher, mediaHandler, type DistributedRuntime, type EndpointHandler } from '../../runtime/index.js';
import { mockerEngineOptions } from './mocker-options.js';
import { mockerOutputScript } from './mocker-output.js';
import type { EndpointId } from '../served-model.js';

export interface MockModelSetup {
  config: Config;
  card: ModelDeploymentCard;
  blockSize: number;
  endpoint: EndpointId;
  /** What the card's runtime config says of how the output is parsed (launch/served-model.ts). */
  parsers: Record<string, unknown>;
}

/**
 * Loads what a mock model needs (the slow part: it runs before any lease is taken), then builds
 * its instances, one per runtime.
 */
export type MockModelLoader = (setup: MockModelSetup) => (runtimes: readonly DistributedRuntime[]) => MockModel;

export interface MockModel {
  modelType: ModelTypeFlag[];
  /** The card's `worker_type`: aggregated but for a prefill or decode LLM mocker. */
  workerType: WorkerType;
  /** The simulated LLM engines (none for media models); with --data-parallel-size N, N per runtime, rank-major. */
  engines: MockerEngine[];
  /** One per runtime, in the same order. */
  handlers: EndpointHandler[];
  /** Added to the card's `runtime_config`: the capacity busy detection compares load with. */
  runtimeConfig: Record<string, unknown>;
}

type MockModelType = Config['modelType'];

const llmMock: MockModelLoader = ({ config, card, blockSize, endpoint, parsers }) => {
  const vocab = buildMockVocabulary(sharedTokenTable(card.tokenizerJsonPath, card.files.tokenizerConfig?.path));
  const output = mockerOutputScript(config, card);
  const settings = mockerEngineOptions(config, vocab, blockSize);
  const role = settings.workerType ?? 'aggregated';
  // Decode workers publish no KV events (upstream): the decode hop routes on load alone.
  const publishesKvEvents = role !== 'decode';
  const ranks = config.dataParallelSize;
  return (runtimes) => {
    const cores = runtimes.map((rt) =>
      Array.from(
        { length: ranks },
        (_, dpRank) =>
          new MockerEngine({
            ...settings,
            dpRank,
            engineId: rt.instanceIdHex,
            output,
            onKvEvent: publishesKvEvents ? kvEventPublisher(rt.events, endpoint.namespace, endpoint.component, rt.instanceId) : undefined,
            onLoad: loadMetricsPublisher(rt.events, endpoint.namespace, rt.instanceId),
          }),
      ),
    );
    const options = cores[0]![0]!.options;
    return {
      // A prefill worker serves no API of its own: upstream registers it with an empty model type.
      modelType: role === 'prefill' ? [] : card.modelType,
      workerType: role,
      engines: cores.flat(),
      handlers: cores.map((ranksOf) => engineHandler(ranksOf.length === 1 ? ranksOf[0]! : new DataParallelEngine(ranksOf))),
      runtimeConfig: {
        total_kv_blocks: options.numGpuBlocks,
        max_num_seqs: options.maxNumSeqs,
        max_num_batched_tokens: options.maxNumBatchedTokens,
        data_parallel_start_rank: 0,
        data_parallel_size: ranks,
        kv_events: publishesKvEvents && options.enablePrefixCaching,
        kv_event_publishing_enabled: publishesKvEvents && options.enablePrefixCaching,
        // The frontend applies these to the model's output (reference/http.md §8).
        ...parsers,
      },
    };
  };
};

/** A media mocker: one stateless engine behind every instance's handler. */
function mediaMock(modelType: ModelTypeFlag, handler: () => EndpointHandler): MockModelLoader {
  return () => {
    const shared = handler();
    return (runtimes) => ({ modelType: [modelType], workerType: 'aggregated', engines: [], handlers: runtimes.map(() => shared), runtimeConfig: {} });
  };
}

export const MOCK_MODELS: Readonly<Record<MockModelType, MockModelLoader>> = {
  chat: llmMock,
  embedding: mediaMock('Embedding', () => mediaHandler<'embeddings'>(new MockEmbeddingEngine())),
  images: mediaMock('Images', () => mediaHandler<'images'>(new MockImageEngine())),
  videos: mediaMock('Videos', () => mediaHandler<'videos'>(new MockVideoEngine())),
};
