// Deterministic output tokens, chosen as a greedy engine would: the next token is a function of
// (sampling seed, every token so far: prompt and generated). A request re-sent with its prompt plus
// the tokens already generated (request migration) therefore continues with exactly the tokens an
// unbroken run would have produced. The context is folded into a rolling hash, so each step costs
// O(1) however long the sequence.
import { computeLocalBlockHashes } from '../../protocols/index.js';
import type { MockVocabulary } from './vocabulary.js';

/** Used when the request carries no sampling seed, so output is still reproducible. */
export const DEFAULT_SAMPLING_SEED = 0;

const DEFAULT_SEED_BITS = BigInt(DEFAULT_SAMPLING_SEED);

/** Most requests carry no seed: theirs is one constant, not two bigints made per request. */
function seedBits(seed: number | null | undefined): bigint {
  return seed == null ? DEFAULT_SEED_BITS : BigInt.asUintN(64, BigInt(Math.trunc(seed)));
}

/** 64-bit digest of (seed, prompt). */
export function promptSeedHash(seed: number | null | undefined, prompt: readonly number[]): bigint {
  const seedBig = seedBits(seed);
  return computeLocalBlockHashes(prompt, prompt.length, seedBig)[0] ?? seedBig;
}

/** SplitMix32's output for the state after a step. */
function mix32(z: number): number {
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** SplitMix32's step. */
const GOLDEN = 0x9e3779b9;

/** splitmix32: a small PRNG with 32 well-mixed bits per call. */
export class SplitMix32 {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static fromHash(hash: bigint): SplitMix32 {
    return new SplitMix32(Number(BigInt.asUintN(32, hash ^ (hash >> 32n))));
  }

  nextU32(): number {
    this.state = (this.state + GOLDEN) >>> 0;
    return mix32(this.state);
  }

  /** Uniform integer in [lo, hi]. */
  nextInRange(lo: number, hi: number): number {
    return lo + (this.nextU32() % (hi - lo + 1));
  }
}

/** One step of the rolling hash's first lane: (a, token) → a. */
function foldA(a: number, token: number): number {
  a = Math.imul(a ^ token, 0x9e3779b1);
  a = Math.imul(a ^ (a >>> 15), 0x85ebca6b);
  return a;
}

/** The second lane's step; takes the first lane before its final mix. */
function foldB(b: number, token: number, a: number): number {
  b = Math.imul(b ^ token ^ (a >>> 7), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 13), 0x27d4eb2f);
  return b ^ (b >>> 16);
}

/** The seed of the PRNG for decisions taken after a context with hash lanes (a, b), as an int32. */
function rngSeed(a: number, b: number): number {
  return a ^ Math.imul(b, 0x165667b1);
}


/** Where a sequence's generated tokens come from. */
export interface OutputTokens {
  /** True while a multi-token unit is half emitted: ending now would cut a character. */
  readonly midUnit: boolean;
  /** Next token; a new unit is chosen only if it fits in `budget` tokens (this one included). */
  nextToken(budget: number): number;
  /** The token that was appended to the sequence (the one returned, or one the stop rules chose). */
  push(token: number): void;
}

/**
 * The seeded "model": at a unit boundary, a unit is drawn from the hash of the whole context; inside
 * a two-token unit, the unit drawn at the previous position (same context, same budget) is
 * continued. Whether the context ends inside a unit is read from the context itself: a split unit
 * starts with a token holding the lead bytes of a character, which no single-token unit and no
 * unit tail can be, so the answer is the same for an unbroken run and for a re-sent one.
 */
export class GreedyTokens implements OutputTokens {
  /**
   * Hash lanes of the whole context and of the context before its last token: int32 numbers, not
   * objects (one step per token) and not uint32 (which would not fit a small integer).
   */
  private a: number;
  private b: number;
  private beforeA: number;
  private beforeB: number;
  private last = -1;
  /** The PRNG seed just after the last special token seen, if any (anchorAt >= 0). */
  private anchorSeed = 0;
  private anchorAt = -1;
  private length = 0;
  /**
   * The last unit drawn, with the context and budget it was drawn for: the unit chosen at one step is
   * the one the next step's continuation check draws again (same context, same budget).
   */
  private drawnSeed = 0;
  /** -1 until a unit is drawn (a budget is at least 1). */
  private drawnBudget = -1;
  private drawnUnit = 0;

  constructor(
    private readonly vocab: MockVocabulary,
    seed: number | null | undefined,
    context: readonly number[],
  ) {
    const bits = seedBits(seed);
    this.a = Number(bits & 0xffffffffn) ^ 0x5bd1e995;
    this.b = Number((bits >> 32n) & 0xffffffffn) ^ 0x1b873593;
    this.beforeA = this.a;
    this.beforeB = this.b;
    for (let i = 0; i < context.length; i++) this.push(context[i]!);
  }

  /** Tokens after the last special token of the context (the chat template's assistant header), -1 if none. */
  get sinceAnchor(): number {
    return this.anchorAt < 0 ? -1 : this.length - this.anchorAt;
  }

  /** A PRNG keyed by the context up to its last special token; null when the context has none. */
  anchorRng(): SplitMix32 | null {
    return this.anchorAt < 0 ? null : new SplitMix32(this.anchorSeed);
  }

  get midUnit(): boolean {
    return this.continuation(Infinity) !== null;
  }

  push(token: number): void {
    this.beforeA = this.a;
    this.beforeB = this.b;
    const a = foldA(this.a, token);
    this.b = foldB(this.b, token, a);
    this.a = a ^ (a >>> 16);
    this.last = token;
    this.length++;
    if (this.vocab.specialIds.has(token)) {
      this.anchorSeed = rngSeed(this.a, this.b);
      this.anchorAt = this.length;
    }
  }

  nextToken(budget: number): number {
    const rest = this.continuation(budget + 1);
    if (rest !== null) return rest;
    const unit = this.unitAt(rngSeed(this.a, this.b), budget);
    return this.vocab.unitTokens[this.vocab.unitStart[unit]!]!;
  }

  /** The second token of the split unit the context's last token starts, or null at a boundary. */
  private continuation(budgetThen: number): number | null {
    if (this.length === 0) return null;
    const { unitStart, unitTokens } = this.vocab;
    const unit = this.unitAt(rngSeed(this.beforeA, this.beforeB), budgetThen);
    const start = unitStart[unit]!;
    if (unitStart[unit + 1]! - start < 2 || unitTokens[start] !== this.last) return null;
    return unitTokens[start + 1]!;
  }

  /** The unit drawn after the context whose PRNG seed is `seed`; one longer than `budget` falls back to a single token. */
  private unitAt(seed: number, budget: number): number {
    if (seed === this.drawnSeed && budget === this.drawnBudget) return this.drawnUnit;
    const { groups, unitStart, totalWeight } = this.vocab;
    // SplitMix32 from `seed`, its state in a local: no object and no boxed field per draw.
    let state = (seed + GOLDEN) | 0;
    let pick = mix32(state) % totalWeight;
    let group = groups[0]!;
    for (const g of groups) {
      if (pick < g.weight) {
        group = g;
        break;
      }
      pick -= g.weight;
    }
    state = (state + GOLDEN) | 0;
    let unit = group.first + (mix32(state) % group.count);
    if (unitStart[unit + 1]! - unitStart[unit]! > budget) {
      // Too long for what is left: the first group's units are single tokens.
      const single = groups[0]!;
      state = (state + GOLDEN) | 0;
      unit = single.first + (mix32(state) % single.count);
    }
    this.drawnSeed = seed;
    this.drawnBudget = budget;
    this.drawnUnit = unit;
    return unit;
  }
}
