// POST /v1/images/generations: the client's request goes to a worker of type Images as it is
// (upstream's NvCreateImageRequest); the worker's answer comes back in OpenAI's shape.
import { validateImageRequest, type JsonSchema } from '../../../pipeline/index.js';
import { InternalError, type NvCreateImageRequest } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, namedModel, onlyOutput, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { MODEL, PROMPT, RESPONSE_FORMAT } from './media-schemas.js';

async function generateImages({ served, requestId, signal }: ModelCall, checked: NvCreateImageRequest): Promise<unknown> {
  const out = await onlyOutput(served.media.images.generate(checked, { requestId, signal }), 'images');
  if (!Array.isArray(out.data)) throw new InternalError('the worker answered an image response without data');
  return { created: out.created ?? Math.floor(Date.now() / 1000), data: out.data };
}

const IMAGES: ModelRouteSpec<NvCreateImageRequest> = {
  api: { type: 'Images', describe: 'image generation' },
  endpoint: 'images',
  modelName: (body) => namedModel(body, validateImageRequest),
  prepare: (req) => validateImageRequest(req.body),
  run: generateImages,
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

const IMAGES_DOC: RouteDoc = {
  summary: 'Generate images',
  tag: 'OpenAI',
  description: 'Images from a model of type Images.',
  body: IMAGES_BODY,
  responses: { 200: json('The images', IMAGES_ANSWER), ...INFERENCE_ERRORS },
};

export const IMAGES_ROUTE: HttpRoute = modelRoute(IMAGES, IMAGES_DOC);
