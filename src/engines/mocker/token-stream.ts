// Deterministic output tokens: a small PRNG seeded from (sampling seed, prompt) walks the unit table,
// so the same seed and prompt always give the same tokens.
import { computeLocalBlockHashes } from '../../protocols/index.js';
import type { MockVocabulary } from './vocabulary.js';

/** Used when the request carries no sampling seed, so output is still reproducible. */
export const DEFAULT_SAMPLING_SEED = 0;

/** 64-bit digest of (seed, prompt). */
export function promptSeedHash(seed: number | null | undefined, prompt: readonly number[]): bigint {
  const seedBig = BigInt.asUintN(64, BigInt(Math.trunc(seed ?? DEFAULT_SAMPLING_SEED)));
  return computeLocalBlockHashes(prompt, prompt.length, seedBig)[0] ?? seedBig;
}

/** Where a sequence's generated tokens come from. */
export interface OutputTokens {
  /** True while a multi-token unit is half emitted: ending now would cut a character. */
  readonly midUnit: boolean;
  /** Next token; a new unit is chosen only if it fits in `budget` tokens (this one included). */
  nextToken(budget: number): number;
}

export class TokenStream implements OutputTokens {
  private state: number;
  /** Remaining tokens of the unit being emitted: unitTokens[pos .. end). */
  private pos = 0;
  private end = 0;

  constructor(
    private readonly vocab: MockVocabulary,
    seedHash: bigint,
  ) {
    this.state = Number(BigInt.asUintN(32, seedHash ^ (seedHash >> 32n))) >>> 0;
  }

  /** splitmix32: 32 well-mixed bits per call. */
  nextU32(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** Uniform integer in [lo, hi]. */
  nextInRange(lo: number, hi: number): number {
    return lo + (this.nextU32() % (hi - lo + 1));
  }

  /** True while a multi-token unit is half emitted: ending now would cut a character. */
  get midUnit(): boolean {
    return this.pos < this.end;
  }

  /** Next token; a new unit is chosen only if it fits in `budget` tokens (this one included). */
  nextToken(budget: number): number {
    if (this.pos >= this.end) this.startUnit(budget);
    return this.vocab.unitTokens[this.pos++]!;
  }

  private startUnit(budget: number): void {
    const { groups, unitStart } = this.vocab;
    let pick = this.nextU32() % this.vocab.totalWeight;
    let group = groups[0]!;
    for (const g of groups) {
      if (pick < g.weight) {
        group = g;
        break;
      }
      pick -= g.weight;
    }
    let unit = group.first + (this.nextU32() % group.count);
    if (unitStart[unit + 1]! - unitStart[unit]! > budget) {
      // Too long for what is left: fall back to the first group, whose units are single tokens.
      const single = groups[0]!;
      unit = single.first + (this.nextU32() % single.count);
    }
    this.pos = unitStart[unit]!;
    this.end = unitStart[unit + 1]!;
  }
}
