// POST /v1/images/generations, /v1/videos/generations and /v1/videos/generations/stream: the
// client's request goes to a worker of the model's type as it is (upstream's NvCreateImageRequest /
// NvCreateVideoRequest); the worker's answer comes back in OpenAI's shape. A video worker streams
// frames (`in_progress` items) and ends with the whole clip (`completed`): the unary route answers
// that last item, the stream route forwards every item as a server-sent event.
import type { FastifyReply } from 'fastify';
import { validateImageRequest, validateVideoRequest } from '../../../pipeline/index.js';
import { InternalError, type NvCreateImageRequest, type NvCreateVideoRequest, type NvVideosResponse } from '../../../protocols/index.js';
import { streamErrorJson } from '../error-envelope.js';
import { namedModel, onlyOutput, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';
import { SseWriter } from '../sse/index.js';

async function generateImages({ served, requestId, signal }: ModelCall, checked: NvCreateImageRequest): Promise<unknown> {
  const out = await onlyOutput(served.media.images.generate(checked, { requestId, signal }), 'images');
  if (!Array.isArray(out.data)) throw new InternalError('the worker answered an image response without data');
  return { created: out.created ?? Math.floor(Date.now() / 1000), data: out.data };
}

async function generateVideo({ served, requestId, signal }: ModelCall, checked: NvCreateVideoRequest): Promise<unknown> {
  const last = await onlyOutput(served.media.videos.generate(checked, { requestId, signal }), 'video');
  if (last.status !== 'completed') throw new InternalError(`the worker's video ended with status ${String(last.status)}${last.error ? `: ${last.error}` : ''}`);
  return last;
}

/** Every worker item as one `data:` event, then `[DONE]`. The first item is awaited before the
 * response commits, so a request no worker takes still gets a plain HTTP error status. */
async function streamVideo({ served, requestId, request, signal }: ModelCall, checked: NvCreateVideoRequest, reply: FastifyReply): Promise<undefined> {
  const items = served.media.videos.generate(checked, { requestId, signal })[Symbol.asyncIterator]();
  let next: IteratorResult<NvVideosResponse> = await items.next();
  reply.hijack();
  const sse = new SseWriter(reply.raw);
  try {
    for (; !next.done && !sse.isClosed; next = await items.next()) sse.data(JSON.stringify(next.value));
    if (sse.isClosed) {
      request.cancel();
      return undefined;
    }
    sse.done();
    request.succeed();
  } catch (err) {
    request.fail(err);
    reply.log.error({ err }, 'video stream failed');
    if (sse.isClosed) return undefined;
    sse.data(streamErrorJson(err));
    sse.done();
  } finally {
    await items.return?.();
  }
  return undefined;
}

export const IMAGES_ROUTE: ModelRouteSpec<NvCreateImageRequest> = {
  api: 'images',
  endpoint: 'images',
  modelName: (body) => namedModel(body, validateImageRequest),
  prepare: (req) => validateImageRequest(req.body),
  run: generateImages,
};

export const VIDEOS_ROUTE: ModelRouteSpec<NvCreateVideoRequest> = {
  api: 'videos',
  endpoint: 'videos',
  modelName: (body) => namedModel(body, validateVideoRequest),
  prepare: (req) => validateVideoRequest(req.body),
  run: generateVideo,
};

export const VIDEOS_STREAM_ROUTE: ModelRouteSpec<NvCreateVideoRequest> = {
  ...VIDEOS_ROUTE,
  streaming: () => true,
  run: streamVideo,
};
