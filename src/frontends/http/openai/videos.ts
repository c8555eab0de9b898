// POST /v1/videos/generations: the client's request goes to a worker of type Videos as it is
// (upstream's NvCreateVideoRequest). A video worker streams frames (`in_progress` items) and ends
// with the whole clip (`completed`): this route answers that last item (videos-stream.ts forwards
// every item).
import { validateVideoRequest, type JsonSchema } from '../../../pipeline/index.js';
import { InternalError, type NvCreateVideoRequest } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, namedModel, onlyOutput, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { MODEL, PROMPT, RESPONSE_FORMAT } from './media-schemas.js';

async function generateVideo({ served, requestId, signal }: ModelCall, checked: NvCreateVideoRequest): Promise<unknown> {
  const last = await onlyOutput(served.media.videos.generate(checked, { requestId, signal }), 'video');
  if (last.status !== 'completed') throw new InternalError(`the worker's video ended with status ${String(last.status)}${last.error ? `: ${last.error}` : ''}`);
  return last;
}

export const VIDEOS: ModelRouteSpec<NvCreateVideoRequest> = {
  api: { type: 'Videos', describe: 'video generation' },
  endpoint: 'videos',
  modelName: (body) => namedModel(body, validateVideoRequest),
  prepare: (req) => validateVideoRequest(req.body),
  run: generateVideo,
};

export const VIDEOS_BODY: JsonSchema = {
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

const VIDEOS_DOC: RouteDoc = {
  summary: 'Generate a video',
  tag: 'Media',
  description: 'A video from a model of type Videos, answered once complete.',
  body: VIDEOS_BODY,
  responses: { 200: json('The completed video', VIDEO_ANSWER), ...INFERENCE_ERRORS },
};

export const VIDEOS_ROUTE: HttpRoute = modelRoute(VIDEOS, VIDEOS_DOC);
