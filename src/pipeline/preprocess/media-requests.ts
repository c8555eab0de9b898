// Raw JSON bodies of /v1/embeddings, /v1/images/generations and /v1/videos/generations → checked
// requests. Every message names the field (and the index inside `input`); unknown fields are left
// alone, as OpenAI's own API does for these routes.

import type { MediaResponseFormat, NvCreateImageRequest, NvCreateVideoRequest } from '../../protocols/index.js';
import { checkKind, deserializeError, isObject, isUint } from './json-types.js';
import { checkModel, checkUser } from './validate/index.js';
import { fail } from './validation-failure.js';

/** A checked embeddings request: each input is a text or a list of token ids. */
export interface EmbeddingRequest {
  model: string;
  inputs: (string | number[])[];
  encodingFormat: 'float' | 'base64';
  dimensions: number | null;
  annotations: string[];
}

/** Largest `dimensions`, `n`, image side and video length accepted: bounds on what one request may ask a worker to build. */
const MAX_DIMENSIONS = 65_536;
const MAX_IMAGES = 10;
const MAX_SIDE = 4096;
const MAX_SECONDS = 60;
const MAX_FPS = 60;

type Body = Record<string, unknown>;

function body(raw: unknown): Body {
  if (!isObject(raw)) throw deserializeError('', 'invalid type: expected a JSON object');
  checkModel(raw.model);
  checkUser(raw.user);
  return raw;
}

function optionalInt(b: Body, field: string, min: number, max: number, path = field): number | null {
  const v = b[field];
  if (v === undefined || v === null) return null;
  checkKind(v, 'int', path);
  if ((v as number) < min || (v as number) > max) fail(`${path} must be between ${min} and ${max}, got ${String(v)}`);
  return v as number;
}

function oneOf<T extends string>(b: Body, field: string, allowed: readonly T[], fallback: T): T {
  const v = b[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !allowed.includes(v as T)) {
    fail(`${field} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

function annotationsOf(b: Body): string[] {
  const nvext = b.nvext;
  if (nvext === undefined || nvext === null) return [];
  checkKind(nvext, 'object', 'nvext');
  const annotations = (nvext as Body).annotations;
  checkKind(annotations, 'string[]', 'nvext.annotations');
  return (annotations as string[] | undefined) ?? [];
}

/** `input`: a string, strings, token ids, or lists of token ids; none of them empty. */
function embeddingInputs(input: unknown): (string | number[])[] {
  if (typeof input === 'string') return [nonEmptyText(input, 'input')];
  if (!Array.isArray(input)) fail('input must be a string, an array of strings, an array of token ids or an array of token id arrays');
  if (input.length === 0) fail('input must not be an empty array');
  if (input.every((v) => typeof v === 'number')) return [tokenIds(input, 'input')];
  return input.map((item: unknown, i) => {
    const path = `input[${i}]`;
    if (typeof item === 'string') return nonEmptyText(item, path);
    if (Array.isArray(item)) {
      if (item.length === 0) fail(`${path} must not be empty`);
      return tokenIds(item, path);
    }
    return fail(`${path} must be a string or an array of token ids (inputs of one request are all texts or all token id lists)`);
  });
}

function nonEmptyText(text: string, path: string): string {
  if (text === '') fail(`${path} must not be an empty string`);
  return text;
}

function tokenIds(ids: unknown[], path: string): number[] {
  const bad = ids.findIndex((id) => !isUint(id));
  if (bad >= 0) fail(`${path}[${bad}] must be a non-negative integer token id, got ${JSON.stringify(ids[bad])}`);
  return ids as number[];
}

export function validateEmbeddingRequest(raw: unknown): EmbeddingRequest {
  const b = body(raw);
  const inputs = embeddingInputs(b.input);
  const mixed = inputs.some((i) => typeof i === 'string') && inputs.some((i) => typeof i !== 'string');
  if (mixed) fail('input must not mix texts and token id lists');
  return {
    model: b.model as string,
    inputs,
    encodingFormat: oneOf(b, 'encoding_format', ['float', 'base64'], 'float'),
    dimensions: optionalInt(b, 'dimensions', 1, MAX_DIMENSIONS),
    annotations: annotationsOf(b),
  };
}

function prompt(b: Body): string {
  checkKind(b.prompt, 'string', 'prompt');
  if (typeof b.prompt !== 'string' || b.prompt.trim() === '') fail('prompt must be a non-empty string');
  return b.prompt;
}

/** `size` as `WxH`, each side 1..4096. */
function size(b: Body): string | null {
  const v = b.size;
  if (v === undefined || v === null) return null;
  const m = typeof v === 'string' ? /^(\d+)x(\d+)$/.exec(v) : null;
  const sides = m ? [Number(m[1]), Number(m[2])] : [];
  if (!m || sides.some((s) => s < 1 || s > MAX_SIDE)) fail(`size must be WIDTHxHEIGHT with sides 1..${MAX_SIDE} (e.g. 1024x1024), got ${JSON.stringify(v)}`);
  return v as string;
}

function responseFormat(b: Body): MediaResponseFormat {
  return oneOf<MediaResponseFormat>(b, 'response_format', ['url', 'b64_json'], 'url');
}

export function validateImageRequest(raw: unknown): NvCreateImageRequest {
  const b = body(raw);
  for (const field of ['quality', 'style']) checkKind(b[field], 'string', field);
  if (b.stream === true) fail('stream is not supported for image generation');
  return {
    ...(b as Partial<NvCreateImageRequest>),
    prompt: prompt(b),
    model: b.model as string,
    n: optionalInt(b, 'n', 1, MAX_IMAGES) ?? 1,
    size: size(b),
    response_format: responseFormat(b),
  };
}

export function validateVideoRequest(raw: unknown): NvCreateVideoRequest {
  const b = body(raw);
  const nvext = b.nvext;
  if (nvext !== undefined && nvext !== null) {
    checkKind(nvext, 'object', 'nvext');
    optionalInt(nvext as Body, 'fps', 1, MAX_FPS, 'nvext.fps');
    optionalInt(nvext as Body, 'num_frames', 1, MAX_FPS * MAX_SECONDS, 'nvext.num_frames');
  }
  return {
    ...(b as Partial<NvCreateVideoRequest>),
    prompt: prompt(b),
    model: b.model as string,
    seconds: optionalInt(b, 'seconds', 1, MAX_SECONDS),
    size: size(b),
    response_format: responseFormat(b),
  };
}
