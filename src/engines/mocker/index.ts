export { MockerEngine, type MockerStats } from './engine.js';
export { DataParallelEngine } from './data-parallel.js';
export { ENGINE_TYPES, type EngineType, type EngineProfile } from './engine-types.js';
export {
  DEFAULT_MOCKER_OPTIONS,
  resolveMockerOptions,
  validateMockerOptions,
  type MockerOptions,
  type MockerEngineOptions,
} from './options.js';
export {
  buildMockVocabulary,
  isCompleteUtf8,
  type MockVocabulary,
  type VocabularySource,
  type UnitGroup,
  type UnitCategory,
} from './vocabulary.js';
export { KvBlockManager, type BlockId, type KvEventSink } from './kv-manager.js';
export { prefillTimeMs, decodeTimeMs, POLYNOMIAL_TIMING, type DecodeState, type StepTiming } from './timing.js';
export { loadPlannerProfile, ProfileTiming } from './profile/profile-timing.js';
export { readNpz, readNpy, type NdArray } from './profile/npz.js';
export { DEFAULT_SAMPLING_SEED } from './token-stream.js';
export { type OutputScript } from './scripted-stream.js';
export {
  MockEmbeddingEngine,
  MockImageEngine,
  MockVideoEngine,
  embedTokens,
  DEFAULT_EMBEDDING_DIMENSIONS,
  DEFAULT_VIDEO_FPS,
  DEFAULT_VIDEO_SECONDS,
} from './media/index.js';
