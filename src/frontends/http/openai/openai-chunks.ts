import type { ChoiceDelta, FoldedChoice, FoldedToolCall, ToolCallDelta } from '../../../pipeline/index.js';
import type { CompletionUsage } from '../../../protocols/index.js';
import { chatLogprobs, completionLogprobs } from './openai-logprobs.js';
import { EventTemplate, type SseWriter } from '../sse/index.js';

// Chunks are assembled from pre-serialized pieces: per token only the text goes through
// JSON.stringify, everything else is fixed for the request. A choice's first and last chunks carry
// every field upstream sends; the chunks between leave out the ones that are null on them anyway
// (`system_fingerprint`, `usage`, a choice's `logprobs` when none were asked for), which clients
// read as absent: a third of a token's frame. The commonest chunk, a choice's next piece of text
// and nothing else, is written from a template of bytes made once per stream and choice.

export type ApiKind = 'chat' | 'completions';

/** The name chat gives the reasoning text in deltas and messages (DYN_REASONING_FIELD_NAME). */
export type ReasoningField = 'reasoning_content' | 'reasoning';

export class ChunkSerializer {
  /** `prompt_token_ids` of the stream's first chunk, until it is written. */
  private promptIds: string | null;
  private readonly head: string;
  /** The head of the chunks between a choice's first and last. */
  private readonly leanHead: string;
  private readonly reasoningKey: string;
  /** By choice index: the lean chunk around a piece of text. */
  private readonly textTemplates: EventTemplate[] = [];

  constructor(
    readonly kind: ApiKind,
    readonly id: string,
    readonly created: number,
    readonly model: string,
    reasoningField: ReasoningField = 'reasoning_content',
    /** With `return_token_ids` on a chat stream: its first chunk carries them. */
    promptTokenIds?: readonly number[],
  ) {
    this.promptIds = promptTokenIds ? JSON.stringify(promptTokenIds) : null;
    this.reasoningKey = `"${reasoningField}":`;
    const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const fingerprint = kind === 'chat' ? ',"system_fingerprint":null' : '';
    this.leanHead = `{"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":[`;
    this.head = `${this.leanHead.slice(0, -',"choices":['.length)}${fingerprint},"choices":[`;
  }

  /** One chunk holding one choice's delta (chat adds `role` to a choice's first). */
  choice(d: ChoiceDelta): string {
    if (d.first || d.finishReason !== null) return `${this.head}${this.choiceBody(d, true)}],"usage":null${this.takePromptIds()}}`;
    return `${this.leanHead}${this.choiceBody(d, false)}]}`;
  }

  /** `,"prompt_token_ids":[...]` the first time, then nothing. */
  private takePromptIds(): string {
    if (this.promptIds === null) return '';
    const field = `,"prompt_token_ids":${this.promptIds}`;
    this.promptIds = null;
    return field;
  }

  /** Queues the chunk of `d` on `sse`. */
  emit(d: ChoiceDelta, sse: Pick<SseWriter, 'data' | 'templated'>): void {
    if (isTextOnly(d)) sse.templated(this.textTemplates[d.index] ?? this.textTemplate(d.index), d.text);
    else sse.data(this.choice(d));
  }

  /** The usage-only chunk sent after the last finish when include_usage is on. */
  usage(usage: CompletionUsage): string {
    return `${this.head}],"usage":${JSON.stringify(usage)}}`;
  }

  /** What `choice` writes around the text of a text-only lean chunk. */
  private textTemplate(index: number): EventTemplate {
    const template =
      this.kind === 'completions'
        ? new EventTemplate(`${this.leanHead}{"index":${index},"text":`, ',"finish_reason":null}]}')
        : new EventTemplate(`${this.leanHead}{"index":${index},"delta":{"content":`, '},"finish_reason":null}]}');
    this.textTemplates[index] = template;
    return template;
  }

  private choiceBody(d: ChoiceDelta, full: boolean): string {
    const finish = d.finishReason === null ? 'null' : `"${d.finishReason}"`;
    const stopReason = d.stopReason === null ? '' : `,"stop_reason":${JSON.stringify(d.stopReason)}`;
    const noLogprobs = full ? 'null' : null;
    if (this.kind === 'completions') {
      const logprobs = d.logprobs ? JSON.stringify(completionLogprobs(d.logprobs)) : noLogprobs;
      return `{"index":${d.index},"text":${JSON.stringify(d.text)}${logprobs === null ? '' : `,"logprobs":${logprobs}`},"finish_reason":${finish}${stopReason}}`;
    }
    let delta = d.first ? '"role":"assistant"' : '';
    if (d.reasoning.length > 0) delta += `${delta ? ',' : ''}${this.reasoningKey}${JSON.stringify(d.reasoning)}`;
    if (d.text.length > 0) delta += `${delta ? ',' : ''}"content":${JSON.stringify(d.text)}`;
    if (d.toolCalls) delta += `${delta ? ',' : ''}"tool_calls":[${d.toolCalls.map(toolCallChunk).join(',')}]`;
    const logprobs = d.logprobs ? JSON.stringify(chatLogprobs(d.logprobs)) : noLogprobs;
    const ids = d.tokenIds ? `,"token_ids":${JSON.stringify(d.tokenIds)}` : '';
    return `{"index":${d.index},"delta":{${delta}},"finish_reason":${finish}${logprobs === null ? '' : `,"logprobs":${logprobs}`}${stopReason}${ids}}`;
  }
}

/** A chunk between a choice's first and last that carries text and nothing else. */
function isTextOnly(d: ChoiceDelta): boolean {
  return !d.first && d.finishReason === null && d.stopReason === null && d.reasoning.length === 0 && d.text.length > 0 && !d.toolCalls && !d.logprobs && !d.tokenIds;
}

/**
 * One piece of a streamed tool call as OpenAI streams it: the first carries id, type and name
 * (with the arguments known so far, often ""), the rest only argument fragments.
 */
function toolCallChunk(piece: ToolCallDelta): string {
  const args = `"arguments":${JSON.stringify(piece.arguments)}`;
  if (piece.id === undefined) return `{"index":${piece.index},"function":{${args}}}`;
  return `{"index":${piece.index},"id":${JSON.stringify(piece.id)},"type":"function","function":{"name":${JSON.stringify(piece.name)},${args}}}`;
}

function toolCallMessage(call: FoldedToolCall): Record<string, unknown> {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

/**
 * What a unary chat answer adds for reinforcement learning, onto `answer`: the prompt's token ids
 * (with each choice's own, when collected) and the weight version the engine reported (SGLang's
 * `metadata.weight_version`).
 */
function addRolloutFields(answer: Record<string, unknown>, choices: readonly FoldedChoice[], promptTokenIds: readonly number[] | undefined): void {
  if (promptTokenIds) answer.prompt_token_ids = promptTokenIds;
  for (const c of choices) {
    const version = c.engineData?.weight_version;
    if (typeof version === 'string') {
      answer.metadata = { weight_version: version };
      return;
    }
  }
}

/** The choices by index: as given when they already are (a fold gives them so), else a sorted copy. */
function byIndex(choices: FoldedChoice[]): FoldedChoice[] {
  for (let i = 1; i < choices.length; i++) if (choices[i - 1]!.index > choices[i]!.index) return [...choices].sort((a, b) => a.index - b.index);
  return choices;
}

/** One choice of a unary chat answer. */
function chatChoice(c: FoldedChoice, reasoningField: ReasoningField): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: c.text.length > 0 ? c.text : null };
  if (c.reasoning.length > 0) message[reasoningField] = c.reasoning;
  if (c.toolCalls) message.tool_calls = c.toolCalls.map(toolCallMessage);
  const choice: Record<string, unknown> = { index: c.index, message, finish_reason: c.finishReason, logprobs: c.logprobs ? chatLogprobs(c.logprobs) : null };
  if (c.stopReason !== null) choice.stop_reason = c.stopReason;
  if (c.tokenIds) choice.token_ids = c.tokenIds;
  return choice;
}

/** One choice of a unary completions answer. */
function completionChoice(c: FoldedChoice): Record<string, unknown> {
  const choice: Record<string, unknown> = { index: c.index, text: c.text, logprobs: c.logprobs ? completionLogprobs(c.logprobs) : null, finish_reason: c.finishReason };
  if (c.stopReason !== null) choice.stop_reason = c.stopReason;
  return choice;
}

/** The unary response: the stream folded into one object (built field by field, in the wire's order). */
export function foldedResponse(
  kind: ApiKind,
  id: string,
  created: number,
  model: string,
  choices: FoldedChoice[],
  usage: CompletionUsage,
  reasoningField: ReasoningField = 'reasoning_content',
  /** Chat with `return_token_ids`: the prompt's ids. */
  promptTokenIds?: readonly number[],
): Record<string, unknown> {
  const sorted = byIndex(choices);
  if (kind === 'completions') {
    const out: unknown[] = [];
    for (const c of sorted) out.push(completionChoice(c));
    return { id, object: 'text_completion', created, model, choices: out, usage };
  }
  const out: unknown[] = [];
  for (const c of sorted) out.push(chatChoice(c, reasoningField));
  const answer: Record<string, unknown> = { id, object: 'chat.completion', created, model, system_fingerprint: null, choices: out, usage };
  addRolloutFields(answer, sorted, promptTokenIds);
  return answer;
}
