// LLM engines over the request plane: the worker wraps each engine output in upstream's Annotated
// envelope; the frontend unwraps it, accepting the sparse (Python) and full (Rust) output shapes.
import {
  endLater,
  iterableOf,
  InternalError,
  pushItems,
  type EngineClient,
  type PushingIterator,
  type StreamSink,
  type GenerateContext,
  type LLMEngineOutput,
  type PreprocessedRequest,
} from '../protocols/index.js';
import type { EndpointInstance } from './discovery/index.js';
import { traceHeaderFields, traceHeadersOf } from './request-plane/index.js';
import { annotatedData, remoteCall, type RemoteCallLogger } from './remote-stream.js';
import { localHandler, type EndpointHandler, type RequestContext, type RequestPlaneClient } from './request-plane/index.js';

/** Marks a handler made by engineHandler with the engine it serves. */
const SERVED_ENGINE = Symbol('served engine');

type EngineEndpointHandler = EndpointHandler & { readonly [SERVED_ENGINE]?: EngineClient };

/** Serves an engine as an endpoint handler: each output becomes `{data: LLMEngineOutput}`. */
export function engineHandler(engine: EngineClient): EndpointHandler {
  const serveEngine = (request: unknown, ctx: RequestContext): AsyncIterable<unknown> =>
    iterableOf(() => new Enveloped(() => {
      const { requestId, signal, metadata } = ctx;
      return engine.generate(request as PreprocessedRequest, { requestId, signal, metadata, trace: traceHeadersOf(ctx.headers) })[Symbol.asyncIterator]();
    }));
  return Object.assign(serveEngine, { [SERVED_ENGINE]: engine });
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * An engine's outputs in their Annotated envelopes, pushed on when the engine's stream pushes (the
 * response stream then takes each output with a call, not a promise). The engine is called at the
 * first `next()` or `pushTo`, so what it throws fails the stream rather than the call.
 */
class Enveloped implements PushingIterator<unknown> {
  private inner: AsyncIterator<LLMEngineOutput> | null = null;
  private returned = false;

  constructor(private readonly start: () => AsyncIterator<LLMEngineOutput>) {}

  next(): Promise<IteratorResult<unknown>> {
    if (this.returned) return Promise.resolve(DONE);
    try {
      return this.engine().next().then(envelope);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  pushTo(sink: StreamSink<unknown>): void {
    if (this.returned) {
      endLater(sink);
      return;
    }
    let inner: AsyncIterator<LLMEngineOutput>;
    try {
      inner = this.engine();
    } catch (err) {
      queueMicrotask(() => sink.fail(err));
      return;
    }
    pushItems(inner, { item: (out) => sink.item({ data: out }), end: () => sink.end(), fail: (err) => sink.fail(err) });
  }

  return(): Promise<IteratorResult<unknown>> {
    this.returned = true;
    return this.inner?.return ? this.inner.return(undefined).then(() => DONE) : Promise.resolve(DONE);
  }

  /** The engine's stream, started on first use; a start that throws leaves the stream over. */
  private engine(): AsyncIterator<LLMEngineOutput> {
    if (this.inner) return this.inner;
    this.returned = true;
    this.inner = this.start();
    this.returned = false;
    return this.inner;
  }
}

function envelope(r: IteratorResult<LLMEngineOutput>): IteratorResult<unknown> {
  return r.done ? DONE : { done: false, value: { data: r.value } };
}

/**
 * The engine behind an in-process instance, while it is served. The Annotated envelope exists for
 * the wire; in one process it would only add an allocation and two generator hops per token.
 */
function inProcessEngine(instance: EndpointInstance): EngineClient | undefined {
  const t = instance.transport;
  return 'inproc' in t ? (localHandler(t.inproc) as EngineEndpointHandler | undefined)?.[SERVED_ENGINE] : undefined;
}

/** An EngineClient for one remote instance: what the PushRouter holds as `WorkerInstance.client`. */
export class RemoteEngineClient implements EngineClient {
  constructor(
    private readonly client: RequestPlaneClient,
    readonly instance: EndpointInstance,
    private readonly logger?: RemoteCallLogger,
  ) {}

  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    const local = inProcessEngine(this.instance);
    if (local) return local.generate(request, ctx);
    const { requestId, signal, metadata, trace } = ctx;
    const headers = trace && traceHeaderFields(trace);
    return remoteCall(this.client, this.instance, request, { requestId, signal, metadata, headers }, engineOutputData, this.logger);
  }
}

/**
 * The LLMEngineOutput inside an Annotated item; null for annotation-only items. An error item, or
 * a finish_reason `{"error": msg}`, becomes a thrown InternalError.
 */
export function engineOutputOf(item: unknown): LLMEngineOutput | null {
  const data = annotatedData(item);
  return data ? engineOutputData(data) : null;
}

function engineOutputData(data: Record<string, unknown>): LLMEngineOutput {
  const finish = data.finish_reason;
  if (finish !== null && typeof finish === 'object') {
    const detail = (finish as { error?: unknown }).error;
    throw new InternalError(`worker error: ${typeof detail === 'string' ? detail : JSON.stringify(finish)}`);
  }
  if (!Array.isArray(data.token_ids)) data.token_ids = [];
  return data as unknown as LLMEngineOutput;
}
