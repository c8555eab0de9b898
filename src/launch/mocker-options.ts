import type { Config } from '../config/index.js';
import { loadPlannerProfile, type MockerEngineOptions, type MockVocabulary, type StepTiming } from '../engines/mocker/index.js';

/** Profiles read once per file: every engine of the process shares one. */
const profiles = new Map<string, StepTiming>();

function plannerProfile(path: string): StepTiming {
  let timing = profiles.get(path);
  if (!timing) profiles.set(path, (timing = loadPlannerProfile(path)));
  return timing;
}

/** The simulated engine's settings from the mocker flags. */
export function mockerEngineOptions(config: Config, vocab: MockVocabulary, blockSize: number): MockerEngineOptions {
  return {
    timing: config.plannerProfileData === undefined ? undefined : plannerProfile(config.plannerProfileData),
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
  };
}
