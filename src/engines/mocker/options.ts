import type { EngineLoad, KvCacheEvent, WorkerType } from '../../protocols/index.js';
import { ValidationError, WORKER_TYPE_NEEDS } from '../../protocols/index.js';
import { ENGINE_TYPES, type EngineType } from './engine-types.js';
import type { OutputScript } from './scripted-stream.js';
import { POLYNOMIAL_TIMING, type StepTiming } from './timing.js';
import type { MockVocabulary } from './vocabulary.js';

/** Tunables of the simulated engine; defaults follow upstream `MockEngineArgs` (reference/router.md §8.1). */
export interface MockerOptions {
  /** Which engine's scheduler is simulated; its default block size applies when blockSize is not given. */
  engineType: EngineType;
  numGpuBlocks: number;
  blockSize: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  enablePrefixCaching: boolean;
  enableChunkedPrefill: boolean;
  /** Fraction of KV blocks kept free when admitting new requests. */
  watermark: number;
  /** Divides every simulated step time; must be > 0. */
  speedupRatio: number;
  /** Further divides decode step time (e.g. to model speculative decoding); must be > 0. */
  decodeSpeedupRatio: number;
  dpRank: number;
  /**
   * The engine's role: a prefill engine answers one token and hands its KV over (transfer
   * parameters on that output); a decode engine skips the prefill of a prompt handed over to it.
   */
  workerType: WorkerType;
  /** Names the engine in the transfer parameters it hands over (`remote_engine_id`). */
  engineId: string;
  /** Output cap when a request has no max_tokens. */
  defaultMaxTokens: number;
  /**
   * Range of the seeded length after which a request ends "naturally" with an EOS token
   * (unless ignore_eos, or the request names no EOS id).
   */
  naturalLengthMin: number;
  naturalLengthMax: number;
  /** Step times: the polynomial model, or a planner profile (`--planner-profile-data`). */
  timing: StepTiming;
}

export interface MockerEngineOptions extends Partial<MockerOptions> {
  vocab: MockVocabulary;
  /** Chooses each request's answer; absent (or answering null), the engine generates seeded random text. */
  output?: OutputScript;
  /** In-process KV event sink; event_id counts from 0, dp_rank is set. Not called when prefix caching is off. */
  onKvEvent?: (event: KvCacheEvent) => void;
  /** Load sink: called when the KV blocks in use or the waiting requests change (after a scheduler step or a cancel). */
  onLoad?: (load: EngineLoad) => void;
}

export const DEFAULT_MOCKER_OPTIONS: Readonly<MockerOptions> = Object.freeze({
  engineType: 'vllm',
  numGpuBlocks: 16384,
  blockSize: 64,
  maxNumSeqs: 256,
  maxNumBatchedTokens: 8192,
  enablePrefixCaching: true,
  enableChunkedPrefill: true,
  watermark: 0.01,
  speedupRatio: 1.0,
  decodeSpeedupRatio: 1.0,
  dpRank: 0,
  workerType: 'aggregated',
  engineId: 'mocker',
  defaultMaxTokens: 512,
  naturalLengthMin: 32,
  naturalLengthMax: 256,
  timing: POLYNOMIAL_TIMING,
});

function invalid(option: keyof MockerOptions, value: unknown, rule: string): never {
  throw new ValidationError(`mocker option ${option}=${String(value)} is invalid: ${rule}`, { option, value });
}

/** Throws a ValidationError naming the first bad option. */
export function validateMockerOptions(o: MockerOptions): void {
  const positiveInts: (keyof MockerOptions)[] = [
    'numGpuBlocks',
    'blockSize',
    'maxNumSeqs',
    'maxNumBatchedTokens',
    'defaultMaxTokens',
    'naturalLengthMin',
  ];
  for (const key of positiveInts) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) invalid(key, v, 'must be an integer >= 1');
  }
  if (!Number.isSafeInteger(o.naturalLengthMax) || o.naturalLengthMax < o.naturalLengthMin) {
    invalid('naturalLengthMax', o.naturalLengthMax, 'must be an integer >= naturalLengthMin');
  }
  if (!Number.isSafeInteger(o.dpRank) || o.dpRank < 0) invalid('dpRank', o.dpRank, 'must be an integer >= 0');
  if (!(o.watermark >= 0 && o.watermark < 1)) invalid('watermark', o.watermark, 'must be in [0, 1)');
  if (!(o.speedupRatio > 0 && Number.isFinite(o.speedupRatio))) invalid('speedupRatio', o.speedupRatio, 'must be > 0');
  if (!(o.decodeSpeedupRatio > 0 && Number.isFinite(o.decodeSpeedupRatio))) {
    invalid('decodeSpeedupRatio', o.decodeSpeedupRatio, 'must be > 0');
  }
  if (o.maxNumBatchedTokens < o.maxNumSeqs) {
    invalid('maxNumBatchedTokens', o.maxNumBatchedTokens, `must be >= maxNumSeqs (${o.maxNumSeqs})`);
  }
  if (!Object.hasOwn(ENGINE_TYPES, o.engineType)) invalid('engineType', o.engineType, `must be one of ${Object.keys(ENGINE_TYPES).join(', ')}`);
  if (!Object.hasOwn(WORKER_TYPE_NEEDS, o.workerType)) invalid('workerType', o.workerType, `must be one of ${Object.keys(WORKER_TYPE_NEEDS).join(', ')}`);
  if (typeof o.enablePrefixCaching !== 'boolean') invalid('enablePrefixCaching', o.enablePrefixCaching, 'must be a boolean');
  if (typeof o.enableChunkedPrefill !== 'boolean') {
    invalid('enableChunkedPrefill', o.enableChunkedPrefill, 'must be a boolean');
  }
}

/** Defaults overlaid with the given values (undefined keeps the default), then validated. */
export function resolveMockerOptions(partial: Partial<MockerOptions> = {}): MockerOptions {
  const resolved = { ...DEFAULT_MOCKER_OPTIONS };
  for (const key of Object.keys(DEFAULT_MOCKER_OPTIONS) as (keyof MockerOptions)[]) {
    const v = partial[key];
    if (v !== undefined) (resolved as Record<keyof MockerOptions, unknown>)[key] = v;
  }
  if (partial.blockSize === undefined && Object.hasOwn(ENGINE_TYPES, resolved.engineType)) resolved.blockSize = ENGINE_TYPES[resolved.engineType].blockSize;
  validateMockerOptions(resolved);
  return resolved;
}
