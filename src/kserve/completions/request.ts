// KServe ModelInferRequest → a typed completion request (reference/kserve.md §5.1), from the
// Triton vLLM-backend inputs and sampling parameters (reference/triton-vllm-backend.md). The
// request is checked once, by the model's preprocessor, as an HTTP body would be.

import { ValidationError, type CompletionRequest } from '../../protocols/index.js';
import { checkRawInputs } from '../tensor/convert.js';
import { dataTypeByKserve } from '../tensor/data-types.js';
import { decodeRaw } from '../tensor/raw-codec.js';
import { parameterScalar } from '../tensor/parameters.js';
import { shapeOf, type InferInputTensor, type ModelInferRequest } from '../wire-types.js';

/** The completion request the tensors make, and what the KServe layer itself acts on. */
export interface CompletionInputs {
  request: CompletionRequest;
  stream: boolean;
  /** `exclude_input_in_output` sent as false: each choice's text starts with this prompt (non-streaming); else empty. */
  echo: string;
  returnInputTokens: boolean;
  returnOutputTokens: boolean;
}

const BOOL_FLAGS = [
  'stream',
  'streaming',
  'exclude_input_in_output',
  'return_finish_reason',
  'return_num_input_tokens',
  'return_num_output_tokens',
] as const;

/** The inputs a completions model takes, as declared tensors (text_input BYTES [1], flags BOOL [1]). */
export const COMPLETION_INPUTS: readonly { name: string; datatype: string; dims: number[] }[] = [
  { name: 'text_input', datatype: 'BYTES', dims: [1] },
  { name: 'sampling_parameters', datatype: 'BYTES', dims: [1] },
  ...BOOL_FLAGS.map((name) => ({ name, datatype: 'BOOL', dims: [1] })),
];

const SUPPORTED =
  "'text_input', 'stream', 'sampling_parameters', 'exclude_input_in_output', 'return_finish_reason', 'return_num_input_tokens', 'return_num_output_tokens'";

/** The completion fields the sampling parameters set, as their values are read. */
interface Sampling {
  max_tokens: number;
  min_tokens: number;
  n: number;
  best_of: number;
  top_k: number;
  seed: number;
  temperature: number;
  top_p: number;
  min_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  repetition_penalty: number;
  ignore_eos: boolean;
  skip_special_tokens: boolean;
  stop: CompletionRequest['stop'];
}

/** A number, or a string that reads as one (parameters travel as strings too). */
function float(value: unknown, key: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || Number.isNaN(n)) throw new ValidationError(`Sampling parameter '${key}' must be a number`);
  return n;
}

const int = (value: unknown, key: string): number => Math.trunc(float(value, key));

function bool(value: unknown, key: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ValidationError(`Sampling parameter '${key}' must be a boolean`);
}

/** `stop` as given, or the JSON list a string parameter spells; its shape is the validator's to judge. */
function stop(value: unknown): CompletionRequest['stop'] {
  if (typeof value === 'string' && value.startsWith('[')) {
    try {
      return JSON.parse(value) as CompletionRequest['stop'];
    } catch {
      return value;
    }
  }
  return value as CompletionRequest['stop'];
}

type SamplingReaders = { [K in keyof Sampling]: (value: unknown, key: string) => Sampling[K] };

/** Each sampling key accepted from `parameters` and `sampling_parameters`, and how its value is read. */
const SAMPLING: SamplingReaders = {
  max_tokens: int,
  min_tokens: int,
  n: int,
  best_of: int,
  top_k: int,
  seed: int,
  temperature: float,
  top_p: float,
  min_p: float,
  frequency_penalty: float,
  presence_penalty: float,
  repetition_penalty: float,
  ignore_eos: bool,
  skip_special_tokens: bool,
  stop,
};

function setSampling<K extends keyof Sampling>(into: Partial<Sampling>, key: K, value: unknown): void {
  const read: SamplingReaders[K] = SAMPLING[key];
  into[key] = read(value, key);
}

/** Each sampling key of `source` into `into`; a key already there keeps its place and takes the new value. */
function applySampling(into: Partial<Sampling>, source: Record<string, unknown>): void {
  for (const key in source) {
    if (Object.hasOwn(SAMPLING, key)) setSampling(into, key as keyof Sampling, source[key]);
  }
}

function rawFor(req: ModelInferRequest, index: number, name: string): Uint8Array {
  const raw = req.raw_input_contents?.[index];
  if (!raw) throw new ValidationError(`Missing raw input for '${name}'`);
  return raw;
}

/** The single BYTES element of `text_input`/`sampling_parameters`. */
function bytesInput(req: ModelInferRequest, input: InferInputTensor, index: number): Uint8Array {
  const { name } = input;
  if (input.datatype !== 'BYTES') {
    throw new ValidationError(`Expected '${name}' to be of type BYTES for string input, got "${input.datatype}"`);
  }
  const shape = shapeOf(input.shape);
  if (!(shape.length === 1 && shape[0] === 1) && !(shape.length === 2 && shape[0] === 1 && shape[1] === 1)) {
    throw new ValidationError(`Expected '${name}' to have shape [1], got [${shape.join(', ')}]`);
  }
  if (input.contents) return onlyElement(input.contents.bytes_contents, name);
  const raw = rawFor(req, index, name);
  if (raw.byteLength < 4) throw new ValidationError(`'${name}' raw input must be length-prefixed (>= 4 bytes)`);
  // Upstream takes everything after the first length prefix; the prefix is checked here so that a
  // truncated element or a second one is refused instead of read into the prompt.
  return decodeRaw(BYTES, raw, name, [1])[0] as Uint8Array;
}

/** The one typed element of a shape-[1] input. */
function onlyElement<T>(values: readonly T[] | undefined, name: string): T {
  if (values?.length !== 1) throw new ValidationError(`'${name}' must contain exactly one element, got ${values?.length ?? 0}`);
  return values[0]!;
}

function boolInput(req: ModelInferRequest, input: InferInputTensor, index: number): boolean {
  const { name } = input;
  if (input.datatype !== 'BOOL') throw new ValidationError(`Expected '${name}' to be of type BOOL, got "${input.datatype}"`);
  const shape = shapeOf(input.shape);
  if (shape.length !== 1 || shape[0] !== 1) {
    throw new ValidationError(`Expected '${name}' to have shape [1], got [${shape.join(', ')}]`);
  }
  if (input.contents) return onlyElement(input.contents.bool_contents, name);
  const raw = rawFor(req, index, name);
  if (raw.byteLength < 1) throw new ValidationError(`'${name}' raw input must contain at least one byte`);
  return decodeRaw(BOOL, raw, name, [1])[0] as boolean;
}

const BYTES = dataTypeByKserve('BYTES')!;
const BOOL = dataTypeByKserve('BOOL')!;

const utf8 = new TextDecoder('utf-8', { fatal: false });

export function toCompletionInputs(req: ModelInferRequest): CompletionInputs {
  checkRawInputs(req);
  let prompt: string | undefined;
  let samplingJson: Record<string, unknown> | undefined;
  const flags: Partial<Record<(typeof BOOL_FLAGS)[number], boolean>> = {};
  req.inputs.forEach((input, i) => {
    const name = input.name;
    if (name === 'text_input') {
      prompt = utf8.decode(bytesInput(req, input, i));
    } else if (name === 'sampling_parameters') {
      samplingJson = parseSamplingJson(utf8.decode(bytesInput(req, input, i)));
    } else if ((BOOL_FLAGS as readonly string[]).includes(name)) {
      flags[name as (typeof BOOL_FLAGS)[number]] = boolInput(req, input, i);
    } else {
      throw new ValidationError(`Invalid input name: ${name}, supported inputs are ${SUPPORTED}`);
    }
  });
  if (prompt === undefined) throw new ValidationError("Missing required input: 'text_input'");
  const stream = flags.stream ?? flags.streaming ?? false;
  const echoPrompt = flags.exclude_input_in_output === false;
  if (stream && echoPrompt) {
    throw new ValidationError('When streaming, `exclude_input_in_output` = False is not allowed.');
  }
  // Request-level parameters first; a sampling_parameters tensor (vLLM backend) overrides them.
  const sampling: Partial<Sampling> = {};
  if (req.parameters) {
    const params: Record<string, unknown> = {};
    for (const key in req.parameters) params[key] = parameterScalar(req.parameters[key]!);
    applySampling(sampling, params);
  }
  if (samplingJson) applySampling(sampling, samplingJson);
  const request: CompletionRequest = { model: req.model_name, prompt, stream, ...(req.id ? { user: req.id } : {}), ...sampling };
  return {
    request,
    stream,
    echo: echoPrompt ? prompt : '',
    returnInputTokens: flags.return_num_input_tokens === true,
    returnOutputTokens: flags.return_num_output_tokens === true,
  };
}

function parseSamplingJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ValidationError(`'sampling_parameters' must be a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError("'sampling_parameters' must be a JSON object");
  }
  return value as Record<string, unknown>;
}
