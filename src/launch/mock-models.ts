// What `dynamo-ts mocker --model-type` serves, by name: the simulated LLM (chat and completions) or
// one of the media mockers. Each entry says the card's model types, the per-instance handlers, and
// the capacity its card declares.
import type { Config } from '../config/index.js';
import { buildMockVocabulary, MockEmbeddingEngine, MockerEngine, MockImageEngine, MockVideoEngine } from '../engines/mocker/index.js';
import type { ModelDeploymentCard, ModelTypeFlag } from '../models/index.js';
import { engineHandler, kvEventPublisher, loadMetricsPublisher, mediaHandler, type DistributedRuntime, type EndpointHandler } from '../runtime/index.js';
import { mockerEngineOptions } from './mocker-options.js';
import { mockerOutputScript } from './mocker-output.js';
import type { EndpointId } from './served-model.js';
import { sharedTokenTable } from './token-tables.js';

export interface MockModelSetup {
  config: Config;
  card: ModelDeploymentCard;
  blockSize: number;
  endpoint: EndpointId;
}

/**
 * Loads what a mock model needs (the slow part: it runs before any lease is taken), then builds
 * its instances, one per runtime.
 */
export type MockModelLoader = (setup: MockModelSetup) => (runtimes: readonly DistributedRuntime[]) => MockModel;

export interface MockModel {
  modelType: ModelTypeFlag[];
  /** The simulated LLM engines (none for media models). */
  engines: MockerEngine[];
  /** One per runtime, in the same order. */
  handlers: EndpointHandler[];
  /** Added to the card's `runtime_config`: the capacity busy detection compares load with. */
  runtimeConfig: Record<string, unknown>;
}

type MockModelType = Config['modelType'];

const llmMock: MockModelLoader = ({ config, card, blockSize, endpoint }) => {
  const vocab = buildMockVocabulary(sharedTokenTable(card.tokenizerJsonPath, card.files.tokenizerConfig?.path));
  const output = mockerOutputScript(config, card);
  return (runtimes) => {
    const engines = runtimes.map(
      (rt) =>
        new MockerEngine({
          ...mockerEngineOptions(config, vocab, blockSize),
          output,
          onKvEvent: kvEventPublisher(rt.events, endpoint.namespace, endpoint.component, rt.instanceId),
          onLoad: loadMetricsPublisher(rt.events, endpoint.namespace, rt.instanceId),
        }),
    );
    const options = engines[0]!.options;
    return {
      modelType: card.modelType,
      engines,
      handlers: engines.map((e) => engineHandler(e)),
      runtimeConfig: {
        total_kv_blocks: options.numGpuBlocks,
        max_num_seqs: options.maxNumSeqs,
        max_num_batched_tokens: options.maxNumBatchedTokens,
        // The frontend applies these to the model's output (reference/http.md §8).
        tool_call_parser: config.dynToolCallParser ?? null,
        reasoning_parser: config.dynReasoningParser ?? null,
      },
    };
  };
};

/** A media mocker: one stateless engine behind every instance's handler. */
function mediaMock(modelType: ModelTypeFlag, handler: () => EndpointHandler): MockModelLoader {
  return () => {
    const shared = handler();
    return (runtimes) => ({ modelType: [modelType], engines: [], handlers: runtimes.map(() => shared), runtimeConfig: {} });
  };
}

export const MOCK_MODELS: Readonly<Record<MockModelType, MockModelLoader>> = {
  chat: llmMock,
  embedding: mediaMock('Embedding', () => mediaHandler<'embeddings'>(new MockEmbeddingEngine())),
  images: mediaMock('Images', () => mediaHandler<'images'>(new MockImageEngine())),
  videos: mediaMock('Videos', () => mediaHandler<'videos'>(new MockVideoEngine())),
};
