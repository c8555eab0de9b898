// What every generating route does around the pipeline, on the model-route skeleton: routing
// headers, the engine fan-out behind the pre-commit peek, folding and streaming helpers. (A worker
// silent too long is the router's to catch: it fails as a lost worker.) A route (chat, completions, Responses) says how it prepares its body and how
// it answers.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import {
  errorKindOf,
  generateChoices,
  ResponseFold,
  type RequestLifecycle,
  type ChoiceDelta,
  type DecodedStep,
  type FoldedChoice,
  type HeaderRouting,
  type PreparedRequest,
  routingFromHeaders,
  reasoningFor,
  toolCallsFor,
  type ChoiceReasoning,
  type ChoiceToolCalls,
} from '../../../pipeline/index.js';
import type { ChatCompletionRequest } from '../../../protocols/index.js';
import { drainStream, isDynamoError, type ModelApi, type RequestScope } from '../../../protocols/index.js';
import type { HttpRoute, RouteContext } from '../http-route.js';
import type { RouteDoc } from '../openapi/index.js';
import { JSON_REPLY_TYPE, postRoute } from '../server.js';
import { SseWriter } from '../sse/index.js';
import { modelRouteHandler, type ModelCall, type ModelRouteSpec } from './model-route.js';
import { peekFirst } from './stream-guard.js';
import { inClientTerms } from './message-origins.js';

export interface GenerationRouteOptions {
  /** The frontend whose request events these requests publish. */
  requestScope: RequestScope;
  /** DYN_HTTP_SSE_KEEP_ALIVE_INTERVAL_MS */
  sseKeepAliveMs?: number;
  /** DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS */
  preCommitErrorPeekMs?: number;
  /** --dyn-debug-perf: where each request's preprocessing timings go. */
  perfLog?: PerfLog;
}

/** Receives one record of stage timings (milliseconds) per request. */
export type PerfLog = (timings: Record<string, string | number>, message: string) => void;

/** A route's body, validated and turned into engine requests. */
export interface PreparedGeneration {
  runs: PreparedRequest[];
  /** Choices per prompt. */
  n: number;
  /** The model's reasoning parser for this request's choices; absent when it has none. */
  reasoning?: ChoiceReasoning;
  /** The tool-call parser for this request's choices; absent when it gets none. */
  toolCalls?: ChoiceToolCalls;
}

/**
 * The output parsers a chat request's choices get from the model's card and the request's tools.
 * A text-in model's engine gets the tool choice itself and parses its own output (what it parsed
 * passes through the fold unparsed): here only the parsers its card names run, on its text.
 */
export function outputParsers(served: ServedModel, chat: ChatCompletionRequest, run: PreparedRequest | undefined): Pick<PreparedGeneration, 'reasoning' | 'toolCalls'> {
  const engineChooses = served.card.modelInput === 'Text' && chat.tool_choice != null && chat.tool_choice !== 'none';
  const toolRequest = engineChooses ? { ...chat, tool_choice: 'auto' as const } : chat;
  return {
    // The rendered prompt says whether the reply starts inside an open reasoning span.
    reasoning: reasoningFor(served.parsers.reasoning, chat, run?.formattedPrompt),
    toolCalls: toolCallsFor(served.parsers.toolCall, toolRequest, run?.toolCallsNative === true),
  };
}

/** One started generation, handed to the route to answer. */
export interface Generation<P extends PreparedGeneration> {
  prepared: P;
  requestId: string;
  request: RequestLifecycle;
  steps: AsyncIterable<DecodedStep>;
  /** Prompt tokens over every prompt. */
  promptTokens: number;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface GenerationRoute<P extends PreparedGeneration> {
  /** The `endpoint` label of request metrics. */
  readonly endpoint: string;
  /** The API it serves: a model of another type is a 400 that says which type it is. */
  readonly api: ModelApi;
  /** The requested model; a body without a usable one fails validation here, before a 404 could answer it. */
  modelName(body: unknown): string;
  /** `routing` is what the request's routing headers set, for the preprocessor; `req` the request, for what else it carries. */
  prepare(body: unknown, served: ServedModel, routing: HeaderRouting, req: FastifyRequest): Promise<P>;
  /** Answers, unary or streamed; the handler maps what it throws before a stream is committed. */
  respond(generation: Generation<P>, reply: FastifyReply): Promise<unknown>;
}

/**
 * A generating route as a model route: routing headers read (a malformed one is refused first) and
 * handed to the route beside its body, then the engine fan-out behind the pre-commit peek, answered
 * by the route.
 */
export function generationSpec<P extends PreparedGeneration>(route: GenerationRoute<P>, opts: GenerationRouteOptions): ModelRouteSpec<P> {
  return {
    api: route.api,
    endpoint: route.endpoint,
    modelName: (body) => route.modelName(body),
    streaming: (body) => (body as { stream?: unknown } | null)?.stream === true,
    prepare(req, served) {
      const routing = routingFromHeaders((name) => req.headers[name]);
      return route.prepare(req.body, served, routing, req);
    },
    run(call, prepared, reply) {
      // Without the pre-commit peek the generation starts at once: no async frame and no await.
      return opts.preCommitErrorPeekMs
        ? startGeneration(call, prepared, opts).then((generation) => route.respond(generation, reply))
        : route.respond(generationOf(call, prepared, opts), reply);
    },
    answersItself: true,
  };
}

/** A prepared call's engine fan-out, started behind the pre-commit peek, for its route to answer. */
export async function startGeneration<P extends PreparedGeneration>(call: ModelCall, prepared: P, opts: GenerationRouteOptions): Promise<Generation<P>> {
  const started = startSteps(call, prepared, opts.perfLog !== undefined);
  const peeked = await peekFirst(started.iterator, opts.preCommitErrorPeekMs);
  return generationFrom(call, prepared, opts, started.routeMs, peeked);
}

/** startGeneration without the peek (DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS unset): at once. */
function generationOf<P extends PreparedGeneration>(call: ModelCall, prepared: P, opts: GenerationRouteOptions): Generation<P> {
  const started = startSteps(call, prepared, opts.perfLog !== undefined);
  return generationFrom(call, prepared, opts, started.routeMs, started.iterator);
}

/**
 * The engine fan-out of a prepared call and, when `timed` (--dyn-debug-perf), how long choosing and
 * dispatching its workers took.
 */
function startSteps(call: ModelCall, prepared: PreparedGeneration, timed: boolean): { iterator: AsyncIterator<DecodedStep>; routeMs: number } {
  call.request.tokenized(prepared.runs);
  // The engine hears when the client awaits one whole answer (a WebSocket's responses are streams, whatever their body says).
  if (call.request.info.requestType === 'unary') for (const run of prepared.runs) run.request.unary = true;
  const routeStarted = timed ? performance.now() : 0;
  const steps = generateChoices({
    target: { engine: call.served.router, tokenTable: call.served.tokenTable },
    prompts: prepared.runs,
    n: prepared.n,
    requestId: call.requestId,
    signal: call.signal,
    hooks: call.request.contextHooks(),
  });
  return { iterator: steps[Symbol.asyncIterator](), routeMs: timed ? performance.now() - routeStarted : 0 };
}

function generationFrom<P extends PreparedGeneration>(call: ModelCall, prepared: P, opts: GenerationRouteOptions, routeMs: number, steps: AsyncIterator<DecodedStep>): Generation<P> {
  if (opts.perfLog) logTimings(opts.perfLog, call.requestId, call.request.info.startedAt, prepared.runs, routeMs);
  const { requestId, request, signal } = call;
  return { prepared, requestId, request, steps: new StepsOf(steps), promptTokens: promptTokensOf(prepared), signal };
}

/** A started iterator as the steps a route reads (no closure per request). */
class StepsOf implements AsyncIterable<DecodedStep> {
  constructor(private readonly iterator: AsyncIterator<DecodedStep>) {}

  [Symbol.asyncIterator](): AsyncIterator<DecodedStep> {
    return this.iterator;
  }
}

/** Prompt tokens over every prompt of a prepared call. */
export function promptTokensOf(prepared: PreparedGeneration): number {
  return prepared.runs.reduce((sum, r) => sum + r.promptTokens, 0);
}

/** A generating route at its path: POST, described by `doc`; `make` builds it from the service's settings. */
export function generatingRoute<P extends PreparedGeneration>(doc: RouteDoc, make: (ctx: RouteContext) => GenerationRoute<P>): HttpRoute {
  return { register: (app, path, ctx) => postRoute(app, path, modelRouteHandler(ctx, generationSpec(make(ctx), ctx.generation)), doc) };
}

/**
 * --dyn-debug-perf: template, tokenize (summed over prompts), routing (choosing workers and
 * dispatching) and the first output (since the request started; the pre-commit peek waits for it).
 */
function logTimings(log: PerfLog, requestId: string, startedAt: number, runs: readonly PreparedRequest[], routeMs: number): void {
  const sum = (pick: (run: PreparedRequest) => number): number => runs.reduce((total, run) => total + pick(run), 0);
  const ms = (value: number): number => Math.round(value * 1000) / 1000;
  log(
    {
      request_id: requestId,
      template_ms: ms(sum((run) => run.templateMs)),
      tokenize_ms: ms(sum((run) => run.tokenizeMs)),
      prompt_tokens: sum((run) => run.promptTokens),
      route_ms: ms(routeMs),
      first_output_ms: ms(performance.now() - startedAt),
    },
    'preprocessing timings',
  );
}

/**
 * Folds every step of a unary answer, giving each delta to `onDelta` when asked; false when the
 * client went away meanwhile (the request is then cancelled).
 */
export function foldAll(
  generation: Generation<PreparedGeneration>,
  fold: ResponseFold,
  onDelta?: (delta: ChoiceDelta) => void,
): Promise<boolean> {
  return drainFold(generation, fold, onDelta).then(() => settleFolded(generation));
}

/**
 * Folds every step of a unary answer, then gives the client `answer()` unless it went away
 * meanwhile (the request is then cancelled): in the same turn as the fold's end.
 */
export function foldAndAnswer(generation: Generation<PreparedGeneration>, fold: ResponseFold, answer: () => void): Promise<void> {
  return drainFold(generation, fold).then(() => {
    if (settleFolded(generation)) answer();
  });
}

function drainFold(generation: Generation<PreparedGeneration>, fold: ResponseFold, onDelta?: (delta: ChoiceDelta) => void): Promise<void> {
  return drainStream(
    generation.steps,
    onDelta
      ? (step) => {
          const delta = fold.step(step);
          if (delta) onDelta(delta);
        }
      : (step) => fold.absorb(step),
    // The fold reads each step within the call: the decoder may refill one step object.
    true,
  );
}

/** The outcome of a folded answer: cancelled when the client went away meanwhile (false), else a success. */
function settleFolded(generation: Generation<PreparedGeneration>): boolean {
  if (generation.signal.aborted) {
    generation.request.cancel();
    return false;
  }
  generation.request.succeed();
  return true;
}

export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.header('content-type', JSON_REPLY_TYPE).send(JSON.stringify(body));
}

/** Takes the response over from fastify and opens an SSE stream on it, echoing `x-request-id`. */
export function openEventStream(reply: FastifyReply, keepAliveMs: number | undefined): SseWriter {
  reply.hijack();
  const headers: Record<string, string> = {};
  const echoed = reply.getHeader('x-request-id');
  if (typeof echoed === 'string') headers['x-request-id'] = echoed;
  return new SseWriter(reply.raw, headers, keepAliveMs);
}

/** Where a stream goes (an SSE stream, a WebSocket): closed once the client went away. */
export interface ClosableOut {
  readonly isClosed: boolean;
}

/** How a route writes its stream: the events of each delta, the closing events, the error events. */
export interface StreamSink {
  delta(delta: ChoiceDelta): void;
  /** Every step is in. */
  finish(): void;
  /** The stream failed after it was committed (the client is still there). */
  fail(err: unknown): void;
}

/**
 * Streams a generation through `fold` into `sink`. A client that went away gets nothing more and
 * the request counts as cancelled.
 */
export async function streamGeneration(
  generation: Generation<PreparedGeneration>,
  reply: Pick<FastifyReply, 'log'>,
  sse: ClosableOut,
  fold: ResponseFold,
  sink: StreamSink,
): Promise<void> {
  const { request } = generation;
  try {
    await drainStream(generation.steps, (step) => {
      if (sse.isClosed) return false;
      const delta = fold.step(step);
      if (delta) sink.delta(delta);
      return true;
    });
    if (sse.isClosed) {
      request.cancel();
      return;
    }
    sink.finish();
    request.succeed();
  } catch (err) {
    const kind = sse.isClosed ? 'cancelled' : errorKindOf(err);
    request.fail(err, kind);
    if (kind !== 'cancelled') {
      const log = { model: request.info.model, kind, status: isDynamoError(err) ? err.httpStatus : 500 };
      // A client error's message may quote the request, so at info only its kind and status.
      if (isDynamoError(err) && err.httpStatus < 500) reply.log.info(log, 'stream ended with a request error');
      else reply.log.error({ ...log, err }, 'stream failed');
    }
    if (!sse.isClosed) sink.fail(err);
  }
}

/** A route translated onto one chat request (Responses, Messages), prepared. */
export interface TranslatedChat extends PreparedGeneration {
  model: string;
  stream: boolean;
}

/** Validates and preprocesses the chat body a route's request was translated to, as chat would. */
export async function prepareTranslatedChat(served: ServedModel, chatBody: unknown, stream: boolean, routing: HeaderRouting): Promise<TranslatedChat> {
  const valid = inClientTerms(chatBody, () => {
    const request = served.preprocessor.validateChat(chatBody);
    served.preprocessor.checkMedia(request.messages);
    return request;
  });
  // The APIs translated to chat allow several system messages, and mid-conversation; not every template does.
  const chat = await served.preprocessor.placeLateSystemMessages(valid);
  const run = await served.preprocessor.preprocessChat(chat, routing);
  const { reasoning, toolCalls } = outputParsers(served, chat, run);
  return { runs: [run], n: 1, model: chat.model, stream, reasoning, toolCalls };
}

/** Where a translated route's events go: the SSE stream, or nowhere for a unary answer. */
export type EventOut = Pick<SseWriter, 'event' | 'end'>;

const NOWHERE: EventOut = { event: () => undefined, end: () => undefined };

/**
 * A translated route's answer as events over its one choice's deltas. A unary answer runs the same
 * events with nothing written and answers their `result()`, so a streamed answer folds to the unary one.
 */
export interface AnswerEvents extends StreamSink {
  /** Writes the opening events. */
  start(): void;
  /** The whole answer, once `finish()` ran. */
  result(): unknown;
  /** Resolves once what the answer does after its last event is done (e.g. storing it); a unary answer is sent then. */
  settled?(): Promise<void>;
}

/** Makes a translated route's events over `out`. */
export type SingleChoiceAnswer = (out: EventOut, fold: ResponseFold) => AnswerEvents;

/** Folds a translated route's one choice into its unary body, or streams it through the route's events. */
export async function answerSingleChoice(
  generation: Generation<TranslatedChat>,
  reply: FastifyReply,
  keepAliveMs: number | undefined,
  answer: SingleChoiceAnswer,
): Promise<unknown> {
  if (generation.prepared.stream) {
    const events = await streamSingleChoice(generation, reply, openEventStream(reply, keepAliveMs), answer);
    await events.settled?.();
    return;
  }
  const fold = singleChoiceFold(generation, false);
  const events = answer(NOWHERE, fold);
  events.start();
  if (!(await foldAll(generation, fold, (delta) => events.delta(delta)))) return;
  events.finish();
  await events.settled?.();
  return sendJson(reply, events.result());
}

/** Streams a translated route's one choice through the route's events into `out`; the events, once done. */
export async function streamSingleChoice<E extends AnswerEvents>(
  generation: Generation<TranslatedChat>,
  reply: Pick<FastifyReply, 'log'>,
  out: EventOut & ClosableOut,
  answer: (out: EventOut, fold: ResponseFold) => E,
): Promise<E> {
  const fold = singleChoiceFold(generation, true);
  const events = answer(out, fold);
  events.start();
  await streamGeneration(generation, reply, out, fold, events);
  return events;
}

/** The fold of a translated route's one choice; a unary answer keeps its text. */
function singleChoiceFold(generation: Generation<TranslatedChat>, stream: boolean): ResponseFold {
  const { reasoning, toolCalls } = generation.prepared;
  return new ResponseFold({ promptTokens: generation.promptTokens, collectText: !stream, request: generation.request, reasoning, toolCalls });
}
