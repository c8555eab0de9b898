import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel, ModelManager } from '../../models/index.js';
import { generateChoices, type DecodedStep, type PreparedRequest } from '../../pipeline/index.js';
import { CancelledError, isDynamoError, type CompletionUsage } from '../../protocols/index.js';
import { streamErrorJson } from './error-envelope.js';
import { ChunkSerializer, foldedResponse, type ApiKind, type FoldedChoice } from './openai-chunks.js';
import { postRoute, requestIdOf, sendError } from './server.js';
import type { HttpServiceState } from './service-state.js';
import { SseWriter } from './sse-writer.js';

export interface OpenAiRouteOptions {
  chatPath: string;
  completionsPath: string;
  /** DYN_ENABLE_FORCE_INCLUDE_USAGE: every stream ends with a usage chunk. */
  forceIncludeUsage: boolean;
}

/** The request fields the HTTP layer itself acts on; the rest belongs to the preprocessor. */
interface StreamFlags {
  model: string;
  stream?: boolean | null;
  n?: number | null;
  stream_options?: { include_usage?: boolean | null } | null;
}

export function registerOpenAiRoutes(
  app: FastifyInstance,
  state: HttpServiceState,
  models: ModelManager,
  opts: OpenAiRouteOptions,
): void {
  const handler = (kind: ApiKind) => (req: FastifyRequest, reply: FastifyReply) =>
    handleInference(kind, req, reply, state, models, opts);
  postRoute(app, opts.chatPath, handler('chat'));
  postRoute(app, opts.completionsPath, handler('completions'));
}

/** Sums usage over every prompt and choice of one request. */
class UsageTally {
  private readonly completion = new Map<number, number>();
  private cached: number | undefined;

  constructor(private readonly promptTokens: number) {}

  add(step: DecodedStep): void {
    if (step.usage) {
      this.completion.set(step.index, step.usage.completion_tokens);
      const cached = step.usage.prompt_tokens_details?.cached_tokens;
      if (cached !== undefined && cached !== null) this.cached = Math.max(this.cached ?? 0, cached);
    } else {
      this.completion.set(step.index, (this.completion.get(step.index) ?? 0) + step.token_ids.length);
    }
  }

  usage(): CompletionUsage {
    let completion = 0;
    for (const c of this.completion.values()) completion += c;
    const usage: CompletionUsage = {
      prompt_tokens: this.promptTokens,
      completion_tokens: completion,
      total_tokens: this.promptTokens + completion,
    };
    if (this.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: this.cached };
    return usage;
  }
}

/** `cancelled` from an engine that stopped on its own reads as `stop` to OpenAI clients. */
function openAiFinish(reason: DecodedStep['finish_reason']): string | null {
  return reason === 'cancelled' ? 'stop' : reason;
}

async function handleInference(
  kind: ApiKind,
  req: FastifyRequest,
  reply: FastifyReply,
  state: HttpServiceState,
  models: ModelManager,
  opts: OpenAiRouteOptions,
): Promise<unknown> {
  const requestId = requestIdOf(req);
  let counted = false;
  try {
    state.assertServing();
    const prepared = await prepare(kind, req.body, models);
    const served = prepared.model;
    const flags = prepared.flags;
    const n = flags.n ?? 1;
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort(new CancelledError());
    });
    state.inflight++;
    counted = true;
    const steps = generateChoices(
      { engine: served.router, tokenTable: served.tokenTable },
      prepared.runs.map((r) => ({ request: r.request, promptTokens: r.promptTokens })),
      n,
      requestId,
      abort.signal,
    );
    const promptTokens = prepared.runs.reduce((sum, r) => sum + r.promptTokens, 0);
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${requestId}`;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = opts.forceIncludeUsage || flags.stream_options?.include_usage === true;
    if (flags.stream) {
      reply.hijack();
      await streamResponse(reply, new ChunkSerializer(kind, id, created, flags.model), steps, new UsageTally(promptTokens), includeUsage);
      return;
    }
    const folded = await foldResponse(steps, new UsageTally(promptTokens), abort.signal);
    if (!folded) return;
    return reply
      .header('content-type', 'application/json')
      .send(JSON.stringify(foldedResponse(kind, id, created, flags.model, folded.choices, folded.usage)));
  } catch (err) {
    if (!isDynamoError(err)) req.log.error({ err, requestId }, 'request failed');
    if (reply.sent || reply.raw.headersSent) return;
    return sendError(reply, err, state.overloadStatus);
  } finally {
    if (counted) state.inflight--;
  }
}

interface Prepared {
  model: ServedModel;
  flags: StreamFlags;
  runs: PreparedRequest[];
}

async function prepare(kind: ApiKind, body: unknown, models: ModelManager): Promise<Prepared> {
  const raw = body as { model?: unknown };
  const name = typeof raw?.model === 'string' ? raw.model : '';
  const served = models.get(name);
  if (kind === 'chat') {
    const request = served.preprocessor.validateChat(body);
    const run = await served.preprocessor.preprocessChat(request);
    return { model: served, flags: request, runs: [run] };
  }
  const request = served.preprocessor.validateCompletion(body);
  const runs = await served.preprocessor.preprocessCompletion(request);
  return { model: served, flags: request, runs };
}

async function streamResponse(
  reply: FastifyReply,
  serializer: ChunkSerializer,
  steps: AsyncIterable<DecodedStep>,
  tally: UsageTally,
  includeUsage: boolean,
): Promise<void> {
  const headers: Record<string, string> = {};
  const echoed = reply.getHeader('x-request-id');
  if (typeof echoed === 'string') headers['x-request-id'] = echoed;
  const sse = new SseWriter(reply.raw, headers);
  const started = new Set<number>();
  try {
    for await (const step of steps) {
      if (sse.isClosed) break;
      tally.add(step);
      const finishReason = openAiFinish(step.finish_reason);
      // Steps whose text is still held back by the stop-string jail carry nothing to send.
      if (step.text.length === 0 && finishReason === null) continue;
      const first = !started.has(step.index);
      if (first) started.add(step.index);
      sse.data(
        serializer.choice({ index: step.index, text: step.text, first, finishReason, stopReason: step.stop_reason }),
      );
    }
    // A client that went away gets no [DONE]: nobody is listening.
    if (sse.isClosed) return;
    if (includeUsage) sse.data(serializer.usage(tally.usage()));
    sse.done();
  } catch (err) {
    if (!isDynamoError(err)) reply.log.error({ err }, 'stream failed');
    if (sse.isClosed) return;
    sse.data(streamErrorJson(err));
    sse.done();
  }
}

async function foldResponse(
  steps: AsyncIterable<DecodedStep>,
  tally: UsageTally,
  signal: AbortSignal,
): Promise<{ choices: FoldedChoice[]; usage: CompletionUsage } | null> {
  const choices = new Map<number, FoldedChoice>();
  for await (const step of steps) {
    tally.add(step);
    let choice = choices.get(step.index);
    if (!choice) {
      choice = { index: step.index, text: '', finishReason: null, stopReason: null };
      choices.set(step.index, choice);
    }
    choice.text += step.text;
    if (step.finish_reason !== null) {
      choice.finishReason = openAiFinish(step.finish_reason);
      choice.stopReason = step.stop_reason;
    }
  }
  if (signal.aborted) return null;
  return { choices: [...choices.values()], usage: tally.usage() };
}
