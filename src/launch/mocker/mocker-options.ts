import { ConfigError, type Config } from '../../config/index.js';
import { ENGINE_TYPES, loadPlannerProfile, type MockerEngineOptions, type MockVocabulary, type StepTiming } from '../../engines/mocker/index.js';
import type { WorkerType } from '../../protocols/index.js';

/** Profiles read once per file: every engine of the process shares one. */
const profiles = new Map<string, StepTiming>();

function plannerProfile(path: string): StepTiming {
  let timing = profiles.get(path);
  if (!timing) profiles.set(path, (timing = loadPlannerProfile(path)));
  return timing;
}

/** `--disaggregation-mode` names → card `worker_type`; `--worker-type` already uses the card's names. */
const DISAGGREGATION_MODES: Readonly<Record<NonNullable<Config['disaggregationMode']>, WorkerType>> = {
  agg: 'aggregated',
  prefill: 'prefill',
  decode: 'decode',
};

/** The mocker's role from `--disaggregation-mode` or its alias `--worker-type`; both given, they must agree. */
export function mockerWorkerType(config: Config): WorkerType {
  const mode = config.disaggregationMode === undefined ? undefined : DISAGGREGATION_MODES[config.disaggregationMode];
  const alias = config.workerType;
  if (mode !== undefined && alias !== undefined && mode !== alias) {
    throw new ConfigError(`--disaggregation-mode ${config.disaggregationMode} and --worker-type ${alias} disagree: give one of them`);
  }
  return mode ?? alias ?? 'aggregated';
}

/** The KV block size the mocker's engines and card use: `--kv-cache-block-size`, `--block-size`, else the engine type's. */
export function mockerBlockSize(config: Config): number {
  return config.kvCacheBlockSize ?? config.blockSize ?? ENGINE_TYPES[config.engineType].blockSize;
}

/** The simulated engine's settings from the mocker flags. */
export function mockerEngineOptions(config: Config, vocab: MockVocabulary, blockSize: number): MockerEngineOptions {
  return {
    timing: config.plannerProfileData === undefined ? undefined : plannerProfile(config.plannerProfileData),
    vocab,
    engineType: config.engineType,
    numGpuBlocks: config.numGpuBlocksOverride,
    blockSize,
    maxNumSeqs: config.maxNumSeqs,
    maxNumBatchedTokens: config.maxNumBatchedTokens,
    enablePrefixCaching: config.enablePrefixCaching,
    enableChunkedPrefill: config.enableChunkedPrefill,
    watermark: config.watermark,
    speedupRatio: config.speedupRatio,
    decodeSpeedupRatio: config.decodeSpeedupRatio,
    workerType: mockerWorkerType(config),
  };
}
