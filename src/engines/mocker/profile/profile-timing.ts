// `--planner-profile-data`: step times interpolated from a planner profile instead of the built-in
// polynomial (reference/disagg-router.md §4). Prefill: TTFT (ms) over the prompt length, linear
// between the profiled lengths (the end segments extended). Decode: ITL (ms) over a grid of active
// KV tokens × context length, bilinear inside it and clamped to its edges.
// Accepted forms (arrays by these names):
// - one .npz with prefill_isl, prefill_ttft_ms (1-D), decode_active_kv_tokens,
//   decode_context_length (1-D) and decode_itl (2-D, [kv tokens][context length]);
// - a profiler directory with selected_prefill_interpolation/raw_data.npz and
//   selected_decode_interpolation/raw_data.npz, or prefill_raw_data.json and
//   decode_raw_data.json (JSON objects of the same arrays, decode_itl as a list of rows).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../../protocols/index.js';
import type { DecodeState, StepTiming } from '../timing.js';
import { readNpz, type NdArray } from './npz.js';

type Arrays = Map<string, NdArray>;

export class ProfileTiming implements StepTiming {
  constructor(
    private readonly isl: Float64Array,
    private readonly ttftMs: Float64Array,
    private readonly kvTokens: Float64Array,
    private readonly contextLength: Float64Array,
    /** Row-major [kvTokens.length][contextLength.length]. */
    private readonly itlMs: Float64Array,
  ) {}

  prefillMs(tokens: number): number {
    if (tokens <= 0) return 0;
    return Math.max(0, interpolate(this.isl, this.ttftMs, tokens));
  }

  decodeMs(state: DecodeState): number {
    const [i0, i1, ti] = bracket(this.kvTokens, state.activeKvTokens);
    const [j0, j1, tj] = bracket(this.contextLength, state.meanContextLength);
    const cols = this.contextLength.length;
    const at = (i: number, j: number): number => this.itlMs[i * cols + j]!;
    const low = at(i0, j0) * (1 - tj) + at(i0, j1) * tj;
    const high = at(i1, j0) * (1 - tj) + at(i1, j1) * tj;
    return Math.max(0, low * (1 - ti) + high * ti);
  }
}

/** Linear interpolation over sorted `xs`, extended past both ends by the end segments. */
function interpolate(xs: Float64Array, ys: Float64Array, x: number): number {
  if (xs.length === 1) return ys[0]!;
  let i = 1;
  while (i < xs.length - 1 && xs[i]! < x) i++;
  const [x0, x1, y0, y1] = [xs[i - 1]!, xs[i]!, ys[i - 1]!, ys[i]!];
  return x1 === x0 ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/** The grid cells around `x` and its position between them, clamped to the grid. */
function bracket(xs: Float64Array, x: number): [number, number, number] {
  const last = xs.length - 1;
  if (last === 0 || x <= xs[0]!) return [0, 0, 0];
  if (x >= xs[last]!) return [last, last, 0];
  let i = 1;
  while (xs[i]! < x) i++;
  return [i - 1, i, (x - xs[i - 1]!) / (xs[i]! - xs[i - 1]!)];
}

/** The planner profile at `path` (an .npz file or a profiler directory). */
export function loadPlannerProfile(path: string): ProfileTiming {
  const where = `--planner-profile-data ${path}`;
  const arrays = statSync(path).isDirectory() ? directoryArrays(path, where) : readNpz(readFileSync(path), where);
  const vector = (...names: string[]): Float64Array => {
    for (const name of names) {
      const a = arrays.get(name);
      if (a) {
        if (a.shape.length !== 1 || a.data.length === 0) throw new ValidationError(`${where}: ${name} must be a non-empty 1-D array`);
        return a.data;
      }
    }
    throw new ValidationError(`${where}: missing array ${names.join(' or ')}`);
  };
  const isl = vector('prefill_isl');
  const ttft = vector('prefill_ttft_ms', 'prefill_ttft');
  if (ttft.length !== isl.length) throw new ValidationError(`${where}: prefill_isl and prefill_ttft_ms differ in length`);
  const kv = vector('decode_active_kv_tokens', 'decode_kv_tokens');
  const context = vector('decode_context_length');
  const itl = arrays.get('decode_itl');
  if (!itl) throw new ValidationError(`${where}: missing array decode_itl`);
  return new ProfileTiming(...sortedBy(isl, ttft), kv, context, itlGrid(itl, kv.length, context.length, where));
}

/** Points in increasing x. */
function sortedBy(xs: Float64Array, ys: Float64Array): [Float64Array, Float64Array] {
  const order = [...xs.keys()].sort((a, b) => xs[a]! - xs[b]!);
  return [Float64Array.from(order, (i) => xs[i]!), Float64Array.from(order, (i) => ys[i]!)];
}

/** decode_itl as [kv tokens][context length]; a grid stored the other way round is transposed. */
function itlGrid(itl: NdArray, rows: number, cols: number, where: string): Float64Array {
  const [a, b] = itl.shape;
  if (itl.shape.length === 2 && a === rows && b === cols) return itl.data;
  if (itl.shape.length === 2 && a === cols && b === rows) {
    const out = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = itl.data[c * rows + r]!;
    return out;
  }
  throw new ValidationError(`${where}: decode_itl must be a ${rows}×${cols} grid (decode_active_kv_tokens × decode_context_length), got ${itl.shape.join('×')}`);
}

function directoryArrays(dir: string, where: string): Arrays {
  const arrays: Arrays = new Map();
  for (const phase of ['prefill', 'decode']) {
    const npz = join(dir, `selected_${phase}_interpolation`, 'raw_data.npz');
    const json = join(dir, `${phase}_raw_data.json`);
    const found = existsSync(npz) ? readNpz(readFileSync(npz), `${where}: ${npz}`) : existsSync(json) ? jsonArrays(json, `${where}: ${json}`) : null;
    if (!found) throw new ValidationError(`${where}: no ${phase} profile (selected_${phase}_interpolation/raw_data.npz or ${phase}_raw_data.json)`);
    for (const [name, a] of found) arrays.set(name, a);
  }
  return arrays;
}

function jsonArrays(file: string, where: string): Arrays {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ValidationError(`${where}: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ValidationError(`${where}: expected a JSON object of arrays`);
  const arrays: Arrays = new Map();
  for (const [name, value] of Object.entries(parsed)) {
    if (!Array.isArray(value)) continue;
    const rows = value.every(Array.isArray) ? (value as unknown[][]) : null;
    const flat = (rows ? rows.flat() : value).map(Number);
    if (flat.some((v) => !Number.isFinite(v))) throw new ValidationError(`${where}: ${name} must hold numbers`);
    arrays.set(name, { shape: rows ? [rows.length, rows[0]?.length ?? 0] : [flat.length], data: Float64Array.from(flat) });
  }
  return arrays;
}
