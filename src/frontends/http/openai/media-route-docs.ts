// What /openapi.json says about embeddings, images and videos: the fields their validators
// (pipeline/preprocess/media-requests.ts) read, and the shapes embeddings-route.ts and
// media-routes.ts answer with.
import type { JsonSchema } from '../../../pipeline/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';

const MODEL: JsonSchema = { type: 'string', description: 'A served model of the route\'s type' };
const PROMPT: JsonSchema = { type: 'string', description: 'What to generate' };
const RESPONSE_FORMAT: JsonSchema = { type: 'string', enum: ['url', 'b64_json'], default: 'url', description: '`url` answers a `data:` URL' };

const EMBEDDINGS_BODY: JsonSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: MODEL,
    input: {
      description: 'A string, strings, token ids, or lists of token ids',
      oneOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { type: 'integer' } },
        { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      ],
    },
    encoding_format: { type: 'string', enum: ['float', 'base64'], default: 'float' },
    dimensions: { type: 'integer', minimum: 1 },
    user: { type: 'string' },
  },
  example: { model: 'my-embedding-model', input: ['first text', 'second text'] },
};

const EMBEDDINGS_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          object: { type: 'string', enum: ['embedding'] },
          index: { type: 'integer' },
          embedding: { description: 'floats, or base64 of little-endian float32', oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }] },
        },
      },
    },
    model: { type: 'string' },
    usage: { type: 'object', properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } } },
  },
};

const IMAGES_BODY: JsonSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model: MODEL,
    prompt: PROMPT,
    n: { type: 'integer', minimum: 1, default: 1 },
    size: { type: 'string', pattern: '^\\d+x\\d+$', example: '256x256' },
    response_format: RESPONSE_FORMAT,
    quality: { type: 'string' },
    style: { type: 'string' },
    user: { type: 'string' },
  },
  example: { model: 'my-image-model', prompt: 'a lighthouse at dawn', response_format: 'b64_json' },
};

const IMAGES_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    created: { type: 'integer' },
    data: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, b64_json: { type: 'string' } } } },
  },
};

const VIDEOS_BODY: JsonSchema = {
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    model: MODEL,
    prompt: PROMPT,
    size: { type: 'string', pattern: '^\\d+x\\d+$' },
    seconds: { type: 'integer', minimum: 1 },
    response_format: RESPONSE_FORMAT,
    nvext: { type: 'object', properties: { fps: { type: 'integer', minimum: 1 }, num_frames: { type: 'integer', minimum: 1 } } },
  },
  example: { model: 'my-video-model', prompt: 'waves on a beach', seconds: 1 },
};

const VIDEO_ANSWER: JsonSchema = { type: 'object', additionalProperties: true, description: 'The worker\'s video response (`status`, `data`)' };

export const EMBEDDINGS_DOC: RouteDoc = {
  summary: 'Create embeddings',
  tag: 'OpenAI',
  description: 'Vectors for each input, from a model of type Embedding.',
  body: EMBEDDINGS_BODY,
  responses: { 200: json('The embeddings, in input order', EMBEDDINGS_ANSWER), ...INFERENCE_ERRORS },
};

export const IMAGES_DOC: RouteDoc = {
  summary: 'Generate images',
  tag: 'OpenAI',
  description: 'Images from a model of type Images.',
  body: IMAGES_BODY,
  responses: { 200: json('The images', IMAGES_ANSWER), ...INFERENCE_ERRORS },
};

export const VIDEOS_DOC: RouteDoc = {
  summary: 'Generate a video',
  tag: 'Media',
  description: 'A video from a model of type Videos, answered once complete.',
  body: VIDEOS_BODY,
  responses: { 200: json('The completed video', VIDEO_ANSWER), ...INFERENCE_ERRORS },
};

export const VIDEOS_STREAM_DOC: RouteDoc = {
  summary: 'Generate a video, streamed',
  tag: 'Media',
  description: 'The worker\'s progress items as server-sent events, then `data: [DONE]`.',
  body: VIDEOS_BODY,
  responses: {
    200: { description: 'Progress items, then the completed video', content: { 'text/event-stream': { type: 'string', description: '`data: <item JSON>` lines, then `data: [DONE]`' } } },
    ...INFERENCE_ERRORS,
  },
};
