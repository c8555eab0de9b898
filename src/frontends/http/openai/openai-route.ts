// Chat completions and legacy completions share one generating route: the body is validated and
// preprocessed by kind, the answer folded into OpenAI's objects or streamed as its chunks.
import type { FastifyReply } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import {
  ResponseFold,
  validateChatRequest,
  validateCompletionRequest,
  type HeaderRouting,
  type PreparedRequest,
} from '../../../pipeline/index.js';
import type { ModelApi } from '../../../protocols/index.js';
import { streamErrorJson } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import {
  foldAndAnswer,
  generatingRoute,
  namedModel,
  openEventStream,
  outputParsers,
  sendJson,
  streamGeneration,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type PreparedGeneration,
} from '../model-route/index.js';
import type { RouteDoc } from '../openapi/index.js';
import { ChunkSerializer, foldedResponse, type ApiKind, type ReasoningField } from './openai-chunks.js';
import { ReasoningDispatch } from './reasoning-dispatch.js';
import { ToolCallDispatch } from './tool-call-dispatch.js';

interface OpenAiRouteOptions extends GenerationRouteOptions {
  /** DYN_ENABLE_FORCE_INCLUDE_USAGE: every stream ends with a usage chunk. */
  forceIncludeUsage: boolean;
  /** DYN_REASONING_FIELD_NAME: what chat calls the reasoning text. */
  reasoningField: ReasoningField;
  /** DYN_ENABLE_STREAMING_REASONING_DISPATCH: an `event: reasoning_dispatch` per closed reasoning block. */
  reasoningDispatch: boolean;
  /** DYN_ENABLE_STREAMING_TOOL_DISPATCH: an `event: tool_call_dispatch` per complete tool call. */
  toolCallDispatch: boolean;
  /** DYN_ENABLE_RL: unary chat answers carry their token ids by default. */
  rlTokenIds: boolean;
}

/** The request fields the HTTP layer itself acts on; the rest belongs to the preprocessor. */
interface StreamFlags {
  model: string;
  stream?: boolean | null;
  n?: number | null;
  stream_options?: { include_usage?: boolean | null } | null;
  /** Completions only: the answer starts with the prompt. */
  echo?: boolean | null;
  /** Chat only: answer with the prompt's and the choices' token ids. */
  return_token_ids?: boolean | null;
}

interface Prepared extends PreparedGeneration {
  flags: StreamFlags;
  /** Completions `echo`: the text each choice starts with. */
  prefix?: (index: number) => string;
}

/** Chat completions or legacy completions at its path, described by `doc`. */
export function openAiRoute(kind: ApiKind, doc: RouteDoc): HttpRoute {
  return generatingRoute(doc, ({ options, generation }) => new OpenAiRoute(kind, {
    ...generation,
    forceIncludeUsage: options.forceIncludeUsage,
    reasoningField: options.reasoningField ?? 'reasoning_content',
    reasoningDispatch: options.reasoningDispatch ?? false,
    toolCallDispatch: options.toolCallDispatch ?? false,
    rlTokenIds: options.rlTokenIds ?? false,
  }));
}

/** The `endpoint` label of request metrics. */
const ENDPOINT_LABEL: Record<ApiKind, string> = { chat: 'chat_completions', completions: 'completions' };

/** The model type each kind needs. */
const MODEL_API: Record<ApiKind, ModelApi> = {
  chat: { type: 'Chat', describe: 'chat completions' },
  completions: { type: 'Completions', describe: 'completions' },
};

/** Chat completions or legacy completions. */
class OpenAiRoute implements GenerationRoute<Prepared> {
  readonly endpoint: string;
  readonly api: ModelApi;

  constructor(
    private readonly kind: ApiKind,
    private readonly opts: OpenAiRouteOptions,
  ) {
    this.endpoint = ENDPOINT_LABEL[kind];
    this.api = MODEL_API[kind];
  }

  modelName(body: unknown): string {
    return namedModel(body, this.kind === 'chat' ? validateChatRequest : validateCompletionRequest);
  }

  async prepare(body: unknown, served: ServedModel, routing: HeaderRouting): Promise<Prepared> {
    if (this.kind === 'chat') {
      const request = served.preprocessor.validateChat(body);
      const run = await served.preprocessor.preprocessChat(request, routing);
      const { reasoning, toolCalls } = outputParsers(served, request, run);
      return { flags: request, n: request.n ?? 1, runs: [run], reasoning, toolCalls };
    }
    const request = served.preprocessor.validateCompletion(body);
    const n = request.n ?? 1;
    const runs = await served.preprocessor.preprocessCompletion(request, routing);
    return { flags: request, n, runs, prefix: request.echo === true ? echoPrefix(runs, n, served) : undefined };
  }

  respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    const { flags, runs, prefix } = generation.prepared;
    const id = `${this.kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${generation.requestId}`;
    const created = Math.floor(Date.now() / 1000);
    const tokenIds = this.kind === 'chat' && returnsTokenIds(flags, this.opts.rlTokenIds);
    const promptTokenIds = tokenIds ? runs[0]!.request.token_ids : undefined;
    const fold = new ResponseFold({
      promptTokens: generation.promptTokens,
      collectText: !flags.stream,
      request: generation.request,
      logprobs: runs[0]!.request.output_options.logprobs != null,
      prefix,
      reasoning: generation.prepared.reasoning,
      toolCalls: generation.prepared.toolCalls,
      tokenIds,
    });
    if (!flags.stream) {
      // No async function: the unary answer keeps no frame of the streaming path's state.
      return foldAndAnswer(generation, fold, () =>
        sendJson(reply, foldedResponse(this.kind, id, created, flags.model, fold.choices(), fold.usage(), this.opts.reasoningField, promptTokenIds)),
      );
    }
    return this.stream(generation, reply, fold, new ChunkSerializer(this.kind, id, created, flags.model, this.opts.reasoningField, promptTokenIds));
  }

  /** Streams the answer as OpenAI's chunks. */
  private async stream(generation: Generation<Prepared>, reply: FastifyReply, fold: ResponseFold, serializer: ChunkSerializer): Promise<void> {
    const { flags } = generation.prepared;
    const includeUsage = this.opts.forceIncludeUsage || flags.stream_options?.include_usage === true;
    const sse = openEventStream(reply, this.opts.sseKeepAliveMs);
    const dispatch = this.opts.reasoningDispatch && generation.prepared.reasoning ? new ReasoningDispatch(sse) : undefined;
    const toolDispatch = this.opts.toolCallDispatch && generation.prepared.toolCalls ? new ToolCallDispatch(sse) : undefined;
    for (const [name, json] of annotationEvents(generation.prepared.runs[0]!, generation.requestId)) sse.annotation(name, json);
    await streamGeneration(generation, reply, sse, fold, {
      delta: (delta) => {
        toolDispatch?.before(delta);
        serializer.emit(delta, sse);
        dispatch?.after(delta);
      },
      finish: () => {
        if (includeUsage) sse.data(serializer.usage(fold.usage()));
        sse.done();
      },
      fail: (err) => {
        sse.data(streamErrorJson(err));
        sse.done();
      },
    });
  }
}

/**
 * Whether a chat answer carries token ids: as the request says, else (with DYN_ENABLE_RL) for a
 * unary answer of one choice. Validation refuses asking for them with n > 1.
 */
function returnsTokenIds(flags: StreamFlags, rl: boolean): boolean {
  if (flags.return_token_ids != null) return flags.return_token_ids;
  return rl && flags.stream !== true && (flags.n ?? 1) === 1;
}

/**
 * The out-of-band events `nvext.annotations` asks for, sent before the first chunk:
 * `formatted_prompt` (the rendered prompt), `token_ids` (the prompt's ids) and `request_id`.
 */
function annotationEvents(run: PreparedRequest, requestId: string): [string, string][] {
  const events: [string, string][] = [];
  for (const name of run.request.annotations ?? []) {
    if (name === 'formatted_prompt' && run.formattedPrompt !== undefined) events.push([name, JSON.stringify(run.formattedPrompt)]);
    else if (name === 'token_ids') events.push([name, JSON.stringify(run.request.token_ids)]);
    else if (name === 'request_id') events.push([name, JSON.stringify(requestId)]);
  }
  return events;
}

/**
 * Completions `echo`: choice `i` starts with the text of prompt `i / n`, as the client sent it
 * (token-id prompts are decoded).
 */
function echoPrefix(runs: PreparedRequest[], n: number, served: ServedModel): (index: number) => string {
  const texts = runs.map(
    (r) => r.formattedPrompt ?? served.tokenTable.decode(r.request.token_ids, r.request.output_options.skip_special_tokens ?? true),
  );
  return (index) => texts[Math.floor(index / n)] ?? '';
}
