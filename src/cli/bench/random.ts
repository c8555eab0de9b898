// Seeded randomness: runs with the same seed send the same prompts at the same offsets.
import { ConfigError } from '../../config/index.js';

/** A seeded uniform generator on [0, 1): xorshift32, small and fast, plenty for load shapes. */
export function seededRandom(seed: number): () => number {
  // Scramble the seed so that nearby seeds (hash ids 1, 2, 3) start far apart; xorshift needs non-zero state.
  let state = Math.imul((seed ^ 0x5bd1e995) >>> 0, 0x9e3779b1) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** A length distribution: draws a whole number of tokens, at least 1. */
export type LengthDistribution = (random: () => number) => number;

type DistributionMaker = (args: readonly number[]) => LengthDistribution;

const DISTRIBUTIONS: Record<string, DistributionMaker> = {
  fixed: ([n]) => () => n!,
  uniform: ([min, max]) => (random) => min! + Math.floor(random() * (max! - min! + 1)),
  normal: ([mean, stddev]) => (random) => Math.round(mean! + stddev! * gaussian(random)),
};

/** Parses `N`, `fixed:N`, `uniform:MIN,MAX` or `normal:MEAN,STDDEV` (the option's pattern has checked the form). */
export function parseLength(text: string, what: string): LengthDistribution {
  const [name, rest] = text.includes(':') ? text.split(':') as [string, string] : ['fixed', text];
  const args = rest.split(',').map(Number);
  if (name === 'uniform' && args[0]! > args[1]!) throw new ConfigError(`${what}: uniform MIN must not exceed MAX, got '${text}'`);
  const draw = DISTRIBUTIONS[name]!(args);
  return (random) => Math.max(1, draw(random));
}

/** Standard normal by Box-Muller. */
function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Exponential gap of a Poisson process of `rate` events per second, in milliseconds. */
export function poissonGapMs(random: () => number, rate: number): number {
  return (-Math.log(1 - random()) / rate) * 1000;
}
