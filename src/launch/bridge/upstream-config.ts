// `--upstream-config FILE`: the OpenAI-compatible servers the frontend bridges itself, by model.
// YAML or JSON (JSON is YAML), either the bare mapping or under `models:` beside settings:
//
//   my-model: [http://10.0.0.5:8000, http://10.0.0.6:8000]
//
//   models:
//     my-model:
//       - http://10.0.0.5:8000
//       - { url: http://10.0.0.6:8000, input: text, kv_events: tcp://10.0.0.6:5557, api_key: sk-1, model: served-name }
//     other-model: { model_path: /models/llama, upstreams: [http://10.0.0.7:8080] }
//   health_interval_secs: 5
//   timeout_secs: 300
//
// Every problem names its entry, as `models.my-model[1].url: not a URL`.
import yaml from 'js-yaml';
import type { UpstreamInput } from '../../engines/openai-bridge/index.js';
import { urlProblem, zmqEndpointProblem, type UpstreamSpec } from './bridge-upstreams.js';

export interface ConfiguredUpstream extends UpstreamSpec {
  /** The model name the server knows (default: the served name). */
  model?: string;
}

export interface ConfiguredModel {
  name: string;
  /** The model's tokenizer and config folder (default: the frontend's --model-path, else the bundled tokenizer). */
  modelPath?: string;
  upstreams: ConfiguredUpstream[];
}

export interface UpstreamConfig {
  models: ConfiguredModel[];
  healthIntervalSecs: number;
  timeoutSecs: number;
}

export class UpstreamConfigError extends Error {}

type Json = Record<string, unknown>;

const INPUTS: readonly UpstreamInput[] = ['tokens', 'text'];
const UPSTREAM_KEYS = new Set(['url', 'input', 'kv_events', 'api_key', 'model']);
const MODEL_KEYS = new Set(['model_path', 'upstreams']);
const TOP_KEYS = new Set(['models', 'health_interval_secs', 'timeout_secs']);

function fail(path: string, problem: string): never {
  throw new UpstreamConfigError(`${path}: ${problem}`);
}

function isMap(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function unknownKeys(value: Json, known: ReadonlySet<string>, path: string): void {
  const extra = Object.keys(value).find((k) => !known.has(k));
  if (extra !== undefined) fail(`${path}.${extra}`, `unknown key (expected one of: ${[...known].join(', ')})`);
}

function nonEmptyString(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(path, 'must be a non-empty string');
  return value;
}

function positiveNumber(value: unknown, path: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) fail(path, 'must be a number greater than 0');
  return value;
}

function upstreamOf(raw: unknown, path: string, defaultInput: UpstreamInput): ConfiguredUpstream {
  if (typeof raw === 'string') {
    const problem = urlProblem(raw);
    if (problem) fail(path, problem);
    return { url: raw, input: defaultInput };
  }
  if (!isMap(raw)) fail(path, 'must be a URL or a map with `url`');
  unknownKeys(raw, UPSTREAM_KEYS, path);
  if (raw.url === undefined) fail(`${path}.url`, 'missing');
  const url = nonEmptyString(raw.url, `${path}.url`);
  const problem = urlProblem(url);
  if (problem) fail(`${path}.url`, problem);
  const spec: ConfiguredUpstream = { url, input: defaultInput };
  if (raw.input !== undefined) {
    if (!INPUTS.includes(raw.input as UpstreamInput)) fail(`${path}.input`, `must be one of ${INPUTS.join(', ')}`);
    spec.input = raw.input as UpstreamInput;
  }
  if (raw.kv_events !== undefined) {
    const kv = nonEmptyString(raw.kv_events, `${path}.kv_events`);
    const kvProblem = zmqEndpointProblem(kv);
    if (kvProblem) fail(`${path}.kv_events`, kvProblem);
    spec.kvEvents = kv;
  }
  if (raw.api_key !== undefined) spec.apiKey = nonEmptyString(raw.api_key, `${path}.api_key`);
  if (raw.model !== undefined) spec.model = nonEmptyString(raw.model, `${path}.model`);
  return spec;
}

function modelOf(name: string, raw: unknown, path: string, defaultInput: UpstreamInput): ConfiguredModel {
  let list: unknown = raw;
  let modelPath: string | undefined;
  if (isMap(raw)) {
    unknownKeys(raw, MODEL_KEYS, path);
    if (raw.model_path !== undefined) modelPath = nonEmptyString(raw.model_path, `${path}.model_path`);
    list = raw.upstreams;
    path = `${path}.upstreams`;
  }
  if (!Array.isArray(list)) fail(path, 'must be a list of upstreams');
  if (list.length === 0) fail(path, 'lists no upstream');
  const upstreams = list.map((u, i) => upstreamOf(u, `${path}[${i}]`, defaultInput));
  const seen = new Set<string>();
  upstreams.forEach((u, i) => {
    if (seen.has(u.url)) fail(`${path}[${i}]`, `${u.url} is listed twice`);
    seen.add(u.url);
  });
  return { name, modelPath, upstreams };
}

/** Parses and validates the file's text; `defaultInput` is the input of upstreams that do not say. */
export function parseUpstreamConfig(text: string, defaultInput: UpstreamInput): UpstreamConfig {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new UpstreamConfigError(`not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === undefined || doc === null) doc = {};
  if (!isMap(doc)) fail('(top level)', 'must be a mapping of model names to upstreams');
  const wrapped = isMap(doc.models);
  if (wrapped) unknownKeys(doc, TOP_KEYS, '(top level)');
  const models = (wrapped ? doc.models : doc) as Json;
  const prefix = wrapped ? 'models.' : '';
  return {
    models: Object.entries(models).map(([name, raw]) => modelOf(name, raw, `${prefix}${name}`, defaultInput)),
    healthIntervalSecs: positiveNumber(wrapped ? doc.health_interval_secs : undefined, 'health_interval_secs', 5),
    timeoutSecs: positiveNumber(wrapped ? doc.timeout_secs : undefined, 'timeout_secs', 300),
  };
}
