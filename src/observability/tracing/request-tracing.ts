// Spans of the frontend's requests, made from the request events of one scope
// (protocols/request-events.ts): the request (`http-request` / `grpc-request`, under the client's
// traceparent), `preprocess` with `preprocess.template` and `preprocess.tokenize`, per engine call
// `router.route_request` (`kv_router.route_request` when the mode predicts overlap) and
// `client_request` (whose context goes to the worker), and `postprocess` from the first token to
// the end. Names and attributes follow upstream's (reference: operate-faults §3). Nothing here
// subscribes to per-token events.
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import {
  subscribeRequestEvents,
  type CompletionUsage,
  type RequestDispatchEvent,
  type RequestInfo,
  type RequestScope,
} from '../../protocols/index.js';
import { epochMs, headersOf, remoteParent, under } from './span-context.js';

/** The spans of one request in flight. */
interface RequestSpans {
  readonly root: Span;
  postprocess: Span | null;
  ttftMs: number | null;
  /** The instance of the last engine call, for the request span. */
  workerId: string | null;
}

/** The request span's name and transport attributes, by the operation's form. */
function requestSpanOf(info: RequestInfo): { name: string; attributes: Attributes } {
  const op = info.operation ?? '';
  if (op.startsWith('/')) {
    const slash = op.lastIndexOf('/');
    return { name: 'grpc-request', attributes: { 'rpc.system': 'grpc', 'rpc.service': op.slice(1, slash), 'rpc.method': op.slice(slash + 1) } };
  }
  const space = op.indexOf(' ');
  return { name: 'http-request', attributes: space > 0 ? { method: op.slice(0, space), uri: op.slice(space + 1) } : {} };
}

function fail(span: Span, error: unknown, kind: string): void {
  span.setAttribute('error.type', kind);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

export class RequestTracing {
  private readonly open = new WeakMap<RequestInfo, RequestSpans>();
  private readonly calls = new WeakMap<RequestDispatchEvent, Span>();

  constructor(private readonly tracer: Tracer) {}

  /** Traces the requests of `scope` until the returned function is called. */
  observe(scope: RequestScope): () => void {
    return subscribeRequestEvents(scope, {
      start: ({ request }) => this.start(request),
      preprocess: ({ request, prompts, endedAt }) => {
        const spans = this.open.get(request);
        if (!spans) return;
        const parent = this.tracer.startSpan('preprocess', { startTime: epochMs(request.startedAt) }, under(spans.root));
        for (const p of prompts) {
          if (p.templateMs > 0) this.child(parent, 'preprocess.template', p.tokenizeStartedAt - p.templateMs, p.tokenizeStartedAt);
          if (p.tokenizeMs > 0) this.child(parent, 'preprocess.tokenize', p.tokenizeStartedAt, p.tokenizeStartedAt + p.tokenizeMs);
        }
        parent.end(epochMs(endedAt));
      },
      dispatch: (event) => this.dispatch(event),
      dispatchEnd: ({ dispatch, error }) => {
        const span = this.calls.get(dispatch);
        if (!span) return;
        this.calls.delete(dispatch);
        if (error !== undefined) fail(span, error, 'engine');
        span.end();
      },
      firstToken: ({ request, ttft }) => {
        const spans = this.open.get(request);
        if (!spans) return;
        spans.ttftMs = ttft * 1000;
        spans.postprocess = this.tracer.startSpan('postprocess', {}, under(spans.root));
      },
      end: ({ request, usage, duration }) => this.finish(request, duration, usage),
      error: ({ request, kind, error, duration }) => {
        const spans = this.open.get(request);
        if (spans) fail(spans.root, error, kind);
        this.finish(request, duration, undefined);
      },
      cancel: ({ request, duration }) => {
        this.open.get(request)?.root.setAttribute('cancelled', true);
        this.finish(request, duration, undefined);
      },
    });
  }

  private start(request: RequestInfo): void {
    const { name, attributes } = requestSpanOf(request);
    const root = this.tracer.startSpan(
      name,
      {
        kind: SpanKind.SERVER,
        startTime: epochMs(request.startedAt),
        attributes: {
          ...attributes,
          model: request.model,
          request_id: request.id,
          endpoint: request.endpoint,
          request_type: request.requestType,
        },
      },
      remoteParent(request.trace),
    );
    this.open.set(request, { root, postprocess: null, ttftMs: null, workerId: null });
  }

  private child(parent: Span, name: string, from: number, to: number): void {
    this.tracer.startSpan(name, { startTime: epochMs(from) }, under(parent)).end(epochMs(to));
  }

  /** The routing decision as its span, and the engine call's span, whose context the worker gets. */
  private dispatch(event: RequestDispatchEvent): void {
    const spans = this.open.get(event.request);
    if (!spans) return;
    const workerId = event.instanceId.toString();
    spans.workerId = workerId;
    const kv = event.overlapBlocks !== undefined;
    const routing: Attributes = { request_id: event.request.id, worker_id: workerId, router_mode: event.routerMode };
    if (kv) routing.overlap_blocks = event.overlapBlocks;
    this.tracer
      .startSpan(kv ? 'kv_router.route_request' : 'router.route_request', { startTime: epochMs(event.routingStartedAt), attributes: routing }, under(spans.root))
      .end();
    const call = this.tracer.startSpan(
      'client_request',
      { kind: SpanKind.CLIENT, attributes: { operation: 'generate', request_id: event.request.id, instance_id: workerId } },
      under(spans.root),
    );
    this.calls.set(event, call);
    event.trace = headersOf(call, event.request.trace?.tracestate);
  }

  private finish(request: RequestInfo, duration: number, usage: CompletionUsage | undefined): void {
    const spans = this.open.get(request);
    if (!spans) return;
    this.open.delete(request);
    const { root } = spans;
    if (usage) {
      root.setAttribute('input_tokens', usage.prompt_tokens);
      root.setAttribute('output_tokens', usage.completion_tokens);
      spans.postprocess?.setAttribute('output_tokens', usage.completion_tokens);
      if (spans.ttftMs !== null && usage.completion_tokens > 1) {
        root.setAttribute('avg_itl_ms', (((duration * 1000 - spans.ttftMs) / (usage.completion_tokens - 1))).toFixed(2));
      }
    }
    if (spans.ttftMs !== null) root.setAttribute('ttft_ms', spans.ttftMs.toFixed(2));
    if (spans.workerId !== null) root.setAttribute('decode_worker_id', spans.workerId);
    const end = epochMs(request.startedAt + duration * 1000);
    spans.postprocess?.end(end);
    root.end(end);
  }
}
