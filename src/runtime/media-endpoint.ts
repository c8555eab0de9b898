// Embedding, image and video engines over the request plane. Their requests and outputs are plain
// JSON (protocols/media.ts): the worker wraps each output in the Annotated envelope, the frontend
// unwraps it. In one process the handler is called through the in-process plane like any other.
import type { GenerateContext, MediaKind, MediaWire } from '../protocols/index.js';
import type { EndpointInstance } from './discovery/index.js';
import { remoteCall, type RemoteCallLogger } from './remote-stream.js';
import type { EndpointHandler, RequestContext, RequestPlaneClient } from './request-plane/index.js';

/** A worker-side engine of one media kind. */
export interface MediaEngine<K extends MediaKind> {
  generate(request: MediaWire[K]['request'], ctx: GenerateContext): AsyncIterable<MediaWire[K]['output']>;
}

/** Serves a media engine as an endpoint handler: each output becomes `{data: output}`. */
export function mediaHandler<K extends MediaKind>(engine: MediaEngine<K>): EndpointHandler {
  return async function* serveMedia(request: unknown, ctx: RequestContext): AsyncGenerator<unknown> {
    const { requestId, signal, metadata } = ctx;
    for await (const out of engine.generate(request as MediaWire[K]['request'], { requestId, signal, metadata })) {
      yield { data: out };
    }
  };
}

/**
 * The frontend's client of one worker instance for every media kind; the route that reads the
 * outputs checks their shape.
 */
export class RemoteMediaClient {
  constructor(
    private readonly client: RequestPlaneClient,
    readonly instance: EndpointInstance,
    private readonly logger?: RemoteCallLogger,
  ) {}

  generate<Req, Out>(request: Req, ctx: GenerateContext): AsyncIterable<Out> {
    const { requestId, signal, metadata } = ctx;
    return remoteCall(this.client, this.instance, request, { requestId, signal, metadata }, (data) => data as Out, this.logger);
  }
}
