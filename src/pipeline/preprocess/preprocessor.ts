// OpenAI request → PreprocessedRequest: template, tokenize, check the context window, build the
// engine's option blocks (reference/http.md §4.2).

import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ChatMessage, ModelDeploymentCard, MultimodalDataMap, ReasoningParserName, ThinkingMode } from '../../protocols/index.js';
import { replyStartsInReasoning } from '../postprocess/index.js';
import { toolCallTag, type StructuralTag, type ToolCallFormat, type ToolCallTag } from '../structural-tags/index.js';
import {
  NotImplementedError,
  type ChatCompletionRequest,
  type CompletionRequest,
  type PreprocessedEmbeddingRequest,
  type PreprocessedRequest,
} from '../../protocols/index.js';
import { ChatTemplate } from './chat-template.js';
import { multiModalData, templateMediaKinds, type MediaKind } from './media-parts.js';
import { checkEmbeddingInputsFit, checkMediaAccepted, fittedMaxTokens } from './model-checks.js';
import {
  cacheSalt,
  extraArgs,
  outputOptions,
  routingHints,
  samplingOptions,
  stopConditions,
} from './request-options.js';
import type { EmbeddingRequest } from './media-requests.js';
import type { ModelSetup } from './preprocess-worker.js';
import type { PooledPrompt, PreprocessPool } from './preprocess-pool.js';
import { chatPromptChars } from './request-limits.js';
import { foldLateSystemMessages, hasLateSystemMessages, LATE_SYSTEM_PROBE } from './late-system.js';
import { withDefaultThinking } from './reasoning-args.js';
import { NO_HEADER_ROUTING, withHeaderRouting, type HeaderRouting } from './routing-headers.js';
import type { HfTokenizer } from './tokenizer/index.js';
import { checkCompletionRequest, honouredNvext, validateChatRequest, validateCompletionRequest, type ValidationOptions } from './validate/index.js';

export interface PreprocessorOptions extends ValidationOptions {
  /** `--exclude-tools-when-tool-choice-none` (default true). */
  excludeToolsWhenToolChoiceNone?: boolean;
  /**
   * Hand every chat's messages, tools and tool choice to the worker in `extra_args`, for workers that apply the
   * model's template themselves (a text-input card, or `--dyn-chat-processor vllm|sglang`). The
   * prompt is still rendered and tokenized here: routing, usage and limits use it.
   */
  forwardMessages?: boolean;
  /** `--dyn-preprocess-workers`: big prompts are rendered and tokenized on these threads. */
  pool?: PreprocessPool;
  /** The deployment's thinking default from the model's card; a request's own control wins. */
  defaultThinking?: ThinkingMode | null;
  /** The card's output parsers and structural-tag settings: what tool-call grammar a chat's engine gets. */
  parsers?: ToolCallFormat & { reasoning: ReasoningParserName | null };
}

export interface PreparedRequest {
  request: PreprocessedRequest;
  promptTokens: number;
  /** The rendered chat prompt (or the completions prompt text), for the `formatted_prompt` annotation. */
  formattedPrompt?: string;
  /** Choices to generate for this prompt. */
  n: number;
  /** Time spent in the tokenizer; 0 when the client sent token ids. */
  tokenizeMs: number;
  /** Time spent rendering the chat template; 0 when none rendered. */
  templateMs: number;
  /** `performance.now()` when the tokenizer started; 0 when the client sent token ids. */
  tokenizeStartedAt: number;
  /**
   * The engine was given the tool-call parser's own grammar (a structural tag): the calls come in
   * that format whatever the tool choice, and that parser reads them.
   */
  toolCallsNative?: boolean;
}

interface Prompt {
  tokens: number[];
  text?: string;
  tokenizeMs: number;
  templateMs: number;
  tokenizeStartedAt: number;
}

/** A prompt the client sent as token ids: neither templated nor tokenized here. */
function givenTokens(tokens: number[]): Prompt {
  return { tokens, tokenizeMs: 0, templateMs: 0, tokenizeStartedAt: 0 };
}

/** A prompt a preprocessing thread rendered and tokenized: its template time is in tokenizeMs. */
function pooled(started: number, prompt: PooledPrompt): Prompt {
  return { ...prompt, templateMs: 0, tokenizeStartedAt: started };
}

export class Preprocessor {
  private readonly template: ChatTemplate;
  /** This model's name in the pool's threads: models alike share it, a changed card gets its own. */
  private readonly poolKey: string;
  /** The media kinds this model's chat template renders (see media-parts.ts); empty: text only. */
  readonly mediaKinds: ReadonlySet<MediaKind>;

  constructor(
    readonly card: ModelDeploymentCard,
    private readonly tokenizer: HfTokenizer,
    private readonly opts: PreprocessorOptions = {},
  ) {
    this.template = new ChatTemplate(card, opts);
    this.poolKey = poolKeyOf(card, opts);
    this.mediaKinds = templateMediaKinds(Object.values(card.chatTemplates));
  }

  private lateSystemRendered: Promise<boolean> | undefined;

  /**
   * For an API whose conversations may carry system messages after they began (Anthropic's): the
   * request as this model's template can render it (late-system.ts).
   */
  async placeLateSystemMessages(request: ChatCompletionRequest): Promise<ChatCompletionRequest> {
    if (!hasLateSystemMessages(request)) return request;
    this.lateSystemRendered ??= this.template.renderOffLoop({ ...request, messages: LATE_SYSTEM_PROBE, tools: undefined }).then(
      () => true,
      () => false,
    );
    return (await this.lateSystemRendered) ? request : { ...request, messages: foldLateSystemMessages(request.messages) };
  }

  validateChat(body: unknown): ChatCompletionRequest {
    const request = validateChatRequest(body, this.opts);
    const args = withDefaultThinking(request.chat_template_args, this.opts.defaultThinking ?? null);
    if (args !== request.chat_template_args) request.chat_template_args = args;
    return request;
  }

  validateCompletion(body: unknown): CompletionRequest {
    return validateCompletionRequest(body, this.opts);
  }

  /** Every media part is of a kind this model's template renders: a 400 naming the part otherwise. */
  checkMedia(messages: readonly ChatMessage[]): void {
    checkMediaAccepted(messages, this.mediaKinds);
  }

  /** A completion request built from another wire shape (KServe's tensors), checked as a body would be. */
  checkCompletion(request: CompletionRequest): CompletionRequest {
    return checkCompletionRequest(request, this.opts);
  }

  /**
   * Every API's chat path: media parts are checked against the template before it renders.
   * `routing` is what the request's routing headers set; it wins over the body's nvext.
   */
  preprocessChat(req: ChatCompletionRequest, routing: HeaderRouting = NO_HEADER_ROUTING): Promise<PreparedRequest> {
    try {
      this.checkMedia(req.messages);
      const media = multiModalData(req.messages);
      const prompt = this.chatPrompt(req);
      // A small chat's prompt is there at once: it is prepared now, with no await in between.
      return prompt instanceof Promise ? prompt.then((ready) => this.preparedChat(req, ready, routing, media)) : Promise.resolve(this.preparedChat(req, prompt, routing, media));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private preparedChat(req: ChatCompletionRequest, prompt: Prompt, routing: HeaderRouting, media: MultimodalDataMap | undefined): PreparedRequest {
    const toolTag = this.toolCallTag(req, prompt.text);
    const prepared = this.prepare(req, prompt, routing, toolTag?.tag);
    if (toolTag?.native === true) prepared.toolCallsNative = true;
    if (media) {
      // As upstream: the media beside the tokens, and the original messages for workers whose
      // multimodal processor tokenizes them itself (TRT-LLM).
      prepared.request.multi_modal_data = media;
      prepared.request.extra_args = { ...prepared.request.extra_args, messages: req.messages };
    }
    if (this.opts.forwardMessages) prepared.request.extra_args = { ...prepared.request.extra_args, ...forwardedChat(req) };
    return prepared;
  }

  /** One prepared request per prompt of a batch (`string[]` or `number[][]`); `routing` as for chat. */
  async preprocessCompletion(req: CompletionRequest, routing: HeaderRouting = NO_HEADER_ROUTING): Promise<PreparedRequest[]> {
    const prompts = await Promise.all(this.completionPrompts(req));
    return prompts.map((prompt) => this.prepare(req, prompt, routing));
  }

  /**
   * Texts are tokenized as raw text (with the post-processor's special tokens, as completions
   * prompts are). An input longer than the context length is a 400 that names its index.
   */
  async preprocessEmbedding(req: EmbeddingRequest): Promise<{ request: PreprocessedEmbeddingRequest; promptTokens: number }> {
    const token_ids = await Promise.all(
      req.inputs.map((input) => (typeof input === 'string' ? this.tokenizer.encode(input, true) : Promise.resolve(input))),
    );
    checkEmbeddingInputsFit(this.card.contextLength, token_ids);
    const request: PreprocessedEmbeddingRequest = {
      token_ids,
      model: req.model,
      encoding_format: req.encodingFormat,
      dimensions: req.dimensions,
      mdc_sum: null,
      annotations: req.annotations,
    };
    return { request, promptTokens: token_ids.reduce((sum, ids) => sum + ids.length, 0) };
  }

  /** A text's ids as `/tokenize` gives them: with the post-processor's special tokens (BOS) when asked. */
  tokenizeText(text: string, addSpecialTokens: boolean): Promise<number[]> {
    return this.tokenizer.encode(text, addSpecialTokens);
  }

  /** A chat's prompt text as chat completions render it (template, tools, template arguments), for `/tokenize`. */
  renderChat(req: ChatCompletionRequest): Promise<string> {
    this.checkMedia(req.messages);
    return this.template.renderOffLoop(req);
  }

  /** Each id's vocabulary entry as the tokenizer spells it; null for an id it lacks. */
  tokenStrings(ids: readonly number[]): (string | null)[] {
    return ids.map((id) => this.tokenizer.idToToken(id));
  }

  /** Ids back to text by the tokenizer's own decode, special tokens kept (`/detokenize`). */
  detokenize(ids: number[]): Promise<string> {
    return this.tokenizer.decode(ids, false);
  }

  /** A small chat's prompt comes back as is, rendered and tokenized without a promise between the steps. */
  private chatPrompt(req: ChatCompletionRequest): Prompt | Promise<Prompt> {
    const tokenData = req.prompt_token_ids ?? req.nvext?.token_data;
    if (tokenData) return givenTokens(tokenData);
    if (req.nvext?.use_raw_prompt === true) return this.encode(rawChatText(req), true);
    const pool = this.opts.pool;
    if (pool && chatPromptChars(req.messages as unknown as Record<string, unknown>[]) >= pool.minChars) {
      const started = performance.now();
      return pool.chat(this.poolKey, this.poolSetup, req).then((prompt) => pooled(started, prompt));
    }
    // The template writes BOS and other special tokens itself.
    const started = performance.now();
    if (this.template.rendersInline(req)) {
      const text = this.template.render(req);
      return this.encode(text, false, performance.now() - started);
    }
    return this.template.renderOffLoop(req).then((text) => this.encode(text, false, performance.now() - started));
  }

  private completionPrompts(req: CompletionRequest): (Prompt | Promise<Prompt>)[] {
    const tokenData = req.nvext?.token_data;
    if (tokenData) return [givenTokens(tokenData)];
    const prompt = req.prompt;
    if (prompt === undefined || prompt === null) {
      throw new NotImplementedError('prompt_embeds without a prompt is not supported by this frontend');
    }
    if (typeof prompt === 'string') return [this.encode(prompt, true)];
    if (prompt.length > 0 && typeof prompt[0] === 'number') {
      return [givenTokens(prompt as number[])];
    }
    return (prompt as (string | number[])[]).map((p) =>
      typeof p === 'string' ? this.encode(p, true) : givenTokens(p),
    );
  }

  private readonly poolSetup = (): ModelSetup => ({
    card: this.card,
    template: { excludeToolsWhenToolChoiceNone: this.opts.excludeToolsWhenToolChoiceNone },
  });

  /** Tokenized on the calling thread when the tokenizer answers at once (see HfTokenizer.encodeNow). */
  private encode(text: string, addSpecialTokens: boolean, templateMs = 0): Prompt | Promise<Prompt> {
    const pool = this.opts.pool;
    const started = performance.now();
    if (pool && text.length >= pool.minChars) {
      return pool.text(this.poolKey, this.poolSetup, text, addSpecialTokens).then((prompt) => ({ ...pooled(started, prompt), templateMs }));
    }
    const tokenized = (tokens: number[]): Prompt => ({ tokens, text, tokenizeMs: performance.now() - started, templateMs, tokenizeStartedAt: started });
    const now = this.tokenizer.encodeNow(text, addSpecialTokens);
    return now !== null ? tokenized(now) : this.tokenizer.encode(text, addSpecialTokens).then(tokenized);
  }

  /**
   * The structural tag of a chat's tool calls, from the card's settings (none when the worker
   * applies the template and the tool choice itself, or the client sent a structural tag of its own).
   */
  private toolCallTag(req: ChatCompletionRequest, prompt: string | undefined): ToolCallTag | null {
    const parsers = this.opts.parsers;
    if (parsers === undefined || this.opts.forwardMessages === true || req.structural_tag != null) return null;
    return toolCallTag(req, parsers, {
      toolsLeftOutForNone: this.opts.excludeToolsWhenToolChoiceNone ?? true,
      startsInReasoning: replyStartsInReasoning(parsers.reasoning, req, prompt),
    });
  }

  private prepare(req: ChatCompletionRequest | CompletionRequest, given: Prompt, headerRouting: HeaderRouting, toolTag?: StructuralTag): PreparedRequest {
    const prompt = truncatedPrompt(given, 'truncate_prompt_tokens' in req ? req.truncate_prompt_tokens : null, this.card.contextLength);
    const promptTokens = prompt.tokens.length;
    const ignoreEos = req.ignore_eos === true;
    const stop = stopConditions(req, this.card.eosTokenIds);
    stop.max_tokens = fittedMaxTokens(this.card.contextLength, promptTokens, stop.max_tokens);
    const routing = honouredNvext(withHeaderRouting(req.nvext, headerRouting), this.opts.nvextEnabled !== false);
    const salt = cacheSalt(routing, req.cache_salt);
    const request: PreprocessedRequest = {
      model: req.model,
      token_ids: prompt.tokens,
      stop_conditions: stop,
      sampling_options: samplingOptions(req, toolTag),
      output_options: outputOptions(req),
      eos_token_ids: ignoreEos ? [] : [...this.card.eosTokenIds],
      mdc_sum: null,
      annotations: req.nvext?.annotations ?? [],
      routing: routingHints(routing, salt),
      extra_args: extraArgs(req, salt),
    };
    return {
      request,
      promptTokens,
      formattedPrompt: prompt.text,
      n: req.n ?? 1,
      tokenizeMs: prompt.tokenizeMs,
      templateMs: prompt.templateMs,
      tokenizeStartedAt: prompt.tokenizeStartedAt,
    };
  }
}

/** `truncate_prompt_tokens`: the prompt's last k tokens (-1: as many as the context holds). */
function truncatedPrompt(prompt: Prompt, keep: number | null | undefined, contextLength: number): Prompt {
  const k = keep === -1 ? contextLength : keep;
  if (k === null || k === undefined || prompt.tokens.length <= k) return prompt;
  // The rendered text no longer matches what is sent.
  return { ...prompt, tokens: prompt.tokens.slice(prompt.tokens.length - k), text: undefined };
}

function poolKeyOf(card: ModelDeploymentCard, opts: PreprocessorOptions): string {
  const { displayName, tokenizerJsonPath, chatTemplates, bosToken, eosToken, unkToken } = card;
  const what = JSON.stringify([displayName, tokenizerJsonPath, chatTemplates, bosToken, eosToken, unkToken, opts.excludeToolsWhenToolChoiceNone]);
  return createHash('sha256').update(what).digest('base64');
}

/** nvext.use_raw_prompt on chat: the messages' text, untemplated. */
function rawChatText(req: ChatCompletionRequest): string {
  return req.messages
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('\n'),
    )
    .join('\n');
}

/**
 * What a worker that applies the template itself gets of a chat (in `extra_args`): the messages,
 * and what its own tool parser and template need (tools, tool choice, template arguments).
 */
function forwardedChat(req: ChatCompletionRequest): Record<string, unknown> {
  const chat: Record<string, unknown> = { messages: req.messages };
  if (req.tools?.length) chat.tools = req.tools;
  if (req.tool_choice != null) chat.tool_choice = req.tool_choice;
  if (req.parallel_tool_calls != null) chat.parallel_tool_calls = req.parallel_tool_calls;
  if (req.chat_template_args != null) chat.chat_template_args = req.chat_template_args;
  return chat;
}
