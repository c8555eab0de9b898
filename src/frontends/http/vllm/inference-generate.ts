// POST /inference/v1/generate: vLLM's token-in, token-out generation (upstream's experimental
// route). The token ids run as a completions request with a token-id prompt, through the same
// preprocessor, router and output stages; the answer is each choice's generated ids, unary or as
// `data:` chunks (no `[DONE]`, as upstream ends the stream).
import type { FastifyReply } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import { ResponseFold, type DecodedStep, type HeaderRouting, type TokenLogprob, type WireFinishReason } from '../../../pipeline/index.js';
import type { ModelApi } from '../../../protocols/index.js';
import { streamErrorJson } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import { foldAll, generatingRoute, openEventStream, sendJson, streamGeneration, type Generation, type GenerationRoute, type PreparedGeneration } from '../model-route/index.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';
import { bodyObject, modelOf } from './body-fields.js';
import { generateBody, type GenerateBody } from './generate-request.js';
import { TOKEN_IDS } from './tokenize.js';

interface Prepared extends PreparedGeneration {
  body: GenerateBody;
  logprobs: boolean;
}

/** vLLM's logprobs of a choice: each token's entry with its alternatives. */
function logprobsOf(entries: readonly TokenLogprob[]): { content: unknown[] } {
  return {
    content: entries.map((e) => ({ token: e.token, logprob: e.logprob, bytes: e.bytes, top_logprobs: e.top.map(({ token, logprob, bytes }) => ({ token, logprob, bytes })) })),
  };
}

/** The steps of a generation, with each step's ids kept per choice until `take` hands them over. */
class IdsByChoice {
  private readonly pending = new Map<number, number[]>();

  tap(steps: AsyncIterable<DecodedStep>): AsyncIterable<DecodedStep> {
    const pending = this.pending;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const step of steps) {
          pending.set(step.index, (pending.get(step.index) ?? []).concat(step.token_ids));
          yield step;
        }
      },
    };
  }

  take(index: number): number[] {
    const ids = this.pending.get(index) ?? [];
    this.pending.delete(index);
    return ids;
  }
}

interface ChoiceOut {
  index: number;
  token_ids: number[];
  finish_reason?: WireFinishReason;
  logprobs?: { content: unknown[] };
}

function choiceOut(index: number, tokenIds: number[], finish: WireFinishReason | null, entries: readonly TokenLogprob[] | undefined): ChoiceOut {
  const out: ChoiceOut = { index, token_ids: tokenIds };
  if (finish !== null) out.finish_reason = finish;
  if (entries) out.logprobs = logprobsOf(entries);
  return out;
}

class InferenceGenerateRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'inference_generate';
  readonly api: ModelApi = { type: 'Completions', describe: 'token-in/token-out generation' };

  constructor(private readonly keepAliveMs: number | undefined) {}

  modelName(body: unknown): string {
    return modelOf(bodyObject(body));
  }

  async prepare(raw: unknown, served: ServedModel, routing: HeaderRouting): Promise<Prepared> {
    const body = generateBody(raw);
    const request = served.preprocessor.validateCompletion(body.completion);
    const runs = await served.preprocessor.preprocessCompletion(request, routing);
    return { body, runs, n: request.n ?? 1, logprobs: request.logprobs != null };
  }

  async respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    const { body, logprobs } = generation.prepared;
    const header = reply.request.headers['x-request-id'];
    const requestId = (typeof header === 'string' && header.trim() !== '' ? header : undefined) ?? body.requestId ?? generation.requestId;
    const ids = new IdsByChoice();
    const tapped = { ...generation, steps: ids.tap(generation.steps) };
    const stream = body.completion.stream === true;
    const fold = new ResponseFold({ promptTokens: generation.promptTokens, collectText: !stream, request: generation.request, logprobs });
    if (!stream) {
      if (!(await foldAll(tapped, fold))) return;
      const choices = fold.choices().map((c) => choiceOut(c.index, ids.take(c.index), c.finishReason, logprobs ? (c.logprobs ?? []) : undefined));
      return sendJson(reply, { request_id: requestId, choices });
    }
    const sse = openEventStream(reply, this.keepAliveMs);
    const chunk = (choices: ChoiceOut[], withUsage: boolean): void => {
      sse.data(JSON.stringify(withUsage ? { request_id: requestId, choices, usage: fold.usage() } : { request_id: requestId, choices }));
    };
    await streamGeneration(tapped, reply, sse, fold, {
      delta: (delta) => chunk([choiceOut(delta.index, ids.take(delta.index), delta.finishReason, logprobs ? (delta.logprobs ?? []) : undefined)], body.continuousUsage),
      finish: () => {
        if (body.includeUsage) chunk([], true);
        sse.end();
      },
      fail: (err) => {
        sse.data(streamErrorJson(err));
        sse.end();
      },
    });
  }
}

const SAMPLING_PARAMS = {
  type: 'object',
  description: "vLLM's sampling parameters: n, temperature, top_p, top_k, min_p, seed, max_tokens, min_tokens, stop, stop_token_ids, ignore_eos, presence/frequency/repetition penalties, logprobs, logit_bias, allowed_token_ids, skip_special_tokens, include_stop_str_in_output, detokenize",
  additionalProperties: true,
} as const;

const CHOICE = {
  type: 'object',
  properties: { index: { type: 'integer' }, token_ids: TOKEN_IDS, finish_reason: { type: 'string' }, logprobs: { type: 'object', additionalProperties: true } },
};

const GENERATE_DOC: RouteDoc = {
  summary: 'Generate tokens from tokens',
  tag: 'vLLM',
  description:
    "vLLM's token-in, token-out generation: `token_ids` are the prompt (no template, no tokenizer), `sampling_params` steer it; " +
    "it runs as a completion with a token-id prompt. The answer carries each choice's generated `token_ids`.",
  body: {
    type: 'object',
    required: ['model', 'token_ids', 'sampling_params'],
    properties: {
      model: { type: 'string' },
      request_id: { type: 'string', description: 'Answered back when the request has no `x-request-id`' },
      token_ids: TOKEN_IDS,
      sampling_params: SAMPLING_PARAMS,
      stream: { type: 'boolean', default: false },
      stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' }, continuous_usage_stats: { type: 'boolean' } } },
      cache_salt: { type: 'string' },
    },
    example: { model: 'Qwen/Qwen3-0.6B', token_ids: [9707, 11, 1879, 0], sampling_params: { max_tokens: 8, temperature: 0 } },
  },
  responses: {
    200: jsonOrStream(
      'The generated token ids per choice, or chunks of them when streaming',
      { type: 'object', properties: { request_id: { type: 'string' }, choices: { type: 'array', items: CHOICE } } },
      '`data: <chunk JSON>` lines (`request_id`, `choices` with new `token_ids`, `usage` when asked); the stream ends without `[DONE]`',
    ),
    ...INFERENCE_ERRORS,
  },
};

export const INFERENCE_GENERATE_ROUTE: HttpRoute = generatingRoute(GENERATE_DOC, ({ generation }) => new InferenceGenerateRoute(generation.sseKeepAliveMs));
