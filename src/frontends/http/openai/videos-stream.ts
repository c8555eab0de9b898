// POST /v1/videos/generations/stream: the video route's request, with every worker item forwarded
// as a server-sent event.
import type { FastifyReply } from 'fastify';
import type { NvCreateVideoRequest, NvVideosResponse } from '../../../protocols/index.js';
import { streamErrorJson } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, type RouteDoc } from '../openapi/index.js';
import { SseWriter } from '../sse/index.js';
import { VIDEOS, VIDEOS_BODY } from './videos.js';

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

const VIDEOS_STREAM: ModelRouteSpec<NvCreateVideoRequest> = {
  ...VIDEOS,
  streaming: () => true,
  run: streamVideo,
};

const VIDEOS_STREAM_DOC: RouteDoc = {
  summary: 'Generate a video, streamed',
  tag: 'Media',
  description: 'The worker\'s progress items as server-sent events, then `data: [DONE]`.',
  body: VIDEOS_BODY,
  responses: {
    200: { description: 'Progress items, then the completed video', content: { 'text/event-stream': { type: 'string', description: '`data: <item JSON>` lines, then `data: [DONE]`' } } },
    ...INFERENCE_ERRORS,
  },
};

export const VIDEOS_STREAM_ROUTE: HttpRoute = modelRoute(VIDEOS_STREAM, VIDEOS_STREAM_DOC);
