import type { Config } from '../config/index.js';
import type { MockerEngineOptions, MockVocabulary } from '../engines/mocker/index.js';

/** The simulated engine's settings from the mocker flags. */
export function mockerEngineOptions(config: Config, vocab: MockVocabulary, blockSize: number): MockerEngineOptions {
  return {
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
