// The typed SSE events of a streamed response (OpenAI's Responses streaming spec): every frame is
// `event: <type>` + `data: {"type", "sequence_number", ...}`; the stream ends after the terminal
// event (response.completed, response.incomplete or response.failed), with no `[DONE]`. A unary
// response runs the same events unwritten and answers the final Response object.

import type { ChoiceDelta, ResponseFold, ToolCallDelta } from '../../../pipeline/index.js';
import { visitInWrittenOrder } from '../model-route/index.js';
import type { AnswerEvents, EventOut } from '../model-route/index.js';
import type { OfferedTool, OfferedTools } from './offered-tools.js';
import {
  customToolCallItem,
  finishedStatus,
  functionCallItem,
  messageItem,
  newItemId,
  outputText,
  reasoningItem,
  reasoningText,
  responseFailure,
  responseObject,
  type ResponseHead,
  type ResponseStatus,
} from './response-object.js';

type Json = Record<string, unknown>;
type Emit = (type: string, payload: Json) => void;

/**
 * One output item as it streams, opened by ResponseEvents when the fold's delta first carries its
 * kind of content and closed before the next item opens (as OpenAI streams them). A function call
 * is an item of its own per call (its `key` is the call's index).
 */
interface StreamedOutput {
  /** Writes the item's opening events. */
  open(emit: Emit, outputIndex: number): void;
  /** Adds a fragment of the item's text. */
  append(emit: Emit, text: string): void;
  /** Writes its closing events; returns the finished item for the response's `output`. */
  close(emit: Emit, status: ResponseStatus): Json;
}

/** An item whose one content part is a text that streams in deltas: the message, the reasoning. */
abstract class TextPartOutput implements StreamedOutput {
  protected abstract readonly id: string;
  /** The item as output_item.added announces it. */
  protected abstract readonly opening: Json;
  /** The delta and done events of its text: `response.output_text`, `response.reasoning_text`. */
  protected abstract readonly textEvents: string;
  protected text = '';
  private outputIndex = 0;

  protected abstract part(text: string): Json;
  protected abstract item(status: ResponseStatus): Json;

  open(emit: Emit, outputIndex: number): void {
    this.outputIndex = outputIndex;
    emit('response.output_item.added', { output_index: outputIndex, item: { id: this.id, ...this.opening } });
    emit('response.content_part.added', { ...this.at(), part: this.part('') });
  }

  append(emit: Emit, text: string): void {
    this.text += text;
    emit(`${this.textEvents}.delta`, { ...this.at(), delta: text, ...this.extras() });
  }

  close(emit: Emit, status: ResponseStatus): Json {
    emit(`${this.textEvents}.done`, { ...this.at(), text: this.text, ...this.extras() });
    emit('response.content_part.done', { ...this.at(), part: this.part(this.text) });
    const item = this.item(status);
    emit('response.output_item.done', { output_index: this.outputIndex, item });
    return item;
  }

  /** Fields its text events carry besides the text. */
  protected extras(): Json {
    return {};
  }

  private at(): Json {
    return { item_id: this.id, output_index: this.outputIndex, content_index: 0 };
  }
}

class MessageOutput extends TextPartOutput {
  protected readonly id = newItemId('msg');
  protected readonly opening = { type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  protected readonly textEvents = 'response.output_text';

  protected part(text: string): Json {
    return outputText(text);
  }

  protected item(status: ResponseStatus): Json {
    return messageItem(this.id, this.text, status);
  }

  protected override extras(): Json {
    return { logprobs: [] };
  }
}

class ReasoningOutput extends TextPartOutput {
  protected readonly id = newItemId('rs');
  protected readonly opening = { type: 'reasoning', status: 'in_progress', summary: [], content: [] };
  protected readonly textEvents = 'response.reasoning_text';

  protected part(text: string): Json {
    return reasoningText(text);
  }

  protected item(status: ResponseStatus): Json {
    return reasoningItem(this.id, this.text, status);
  }
}

/** A call's item: opened when the call's first piece arrives, its arguments gathered as they stream. */
abstract class CallOutput implements StreamedOutput {
  protected abstract readonly id: string;
  protected arguments = '';
  protected outputIndex = 0;

  constructor(
    protected readonly callId: string,
    protected readonly name: string,
    protected readonly namespace: string | undefined,
  ) {}

  open(emit: Emit, outputIndex: number): void {
    this.outputIndex = outputIndex;
    emit('response.output_item.added', { output_index: outputIndex, item: this.item('in_progress') });
  }

  append(emit: Emit, fragment: string): void {
    this.arguments += fragment;
    this.streamed(emit, fragment);
  }

  close(emit: Emit, status: ResponseStatus): Json {
    this.done(emit);
    const item = this.item(status);
    emit('response.output_item.done', { output_index: this.outputIndex, item });
    return item;
  }

  /** The events of one arguments fragment. */
  protected abstract streamed(emit: Emit, fragment: string): void;
  /** The events of the whole call, before its item is done. */
  protected abstract done(emit: Emit): void;
  protected abstract item(status: ResponseStatus): Json;
}

/** A tool call as a `function_call` item: its arguments stream as `response.function_call_arguments` deltas. */
class FunctionCallOutput extends CallOutput {
  protected readonly id = newItemId('fc');

  protected streamed(emit: Emit, fragment: string): void {
    emit('response.function_call_arguments.delta', { item_id: this.id, output_index: this.outputIndex, delta: fragment });
  }

  protected done(emit: Emit): void {
    emit('response.function_call_arguments.done', { item_id: this.id, output_index: this.outputIndex, name: this.name, arguments: this.arguments });
  }

  protected item(status: ResponseStatus): Json {
    return functionCallItem(this.id, { callId: this.callId, name: this.name, arguments: this.arguments, namespace: this.namespace }, status);
  }
}

/**
 * A call of a custom tool, offered as a function of one string `input`: its arguments arrive as
 * that JSON object, so the free-form input is known, and streamed, once the call is whole.
 */
class CustomToolCallOutput extends CallOutput {
  protected readonly id = newItemId('ctc');

  protected streamed(): void {}

  protected done(emit: Emit): void {
    const input = customInput(this.arguments);
    const at = { item_id: this.id, output_index: this.outputIndex };
    if (input.length > 0) emit('response.custom_tool_call_input.delta', { ...at, delta: input });
    emit('response.custom_tool_call_input.done', { ...at, input });
  }

  protected item(status: ResponseStatus): Json {
    // Until the call is whole its input is not known: the opening item carries an empty one.
    const input = status === 'in_progress' ? '' : customInput(this.arguments);
    return customToolCallItem(this.id, { callId: this.callId, name: this.name, input, namespace: this.namespace }, status);
  }
}

/** The `input` string of a custom tool's call arguments; arguments that are not that object are the input as written. */
function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as unknown;
    const input = typeof parsed === 'object' && parsed !== null ? (parsed as Json).input : undefined;
    return typeof input === 'string' ? input : args;
  } catch {
    return args;
  }
}

type OutputKind = 'message' | 'reasoning' | 'function_call';

/** What opens an item: a tool call's id and name (the first piece of the call). */
type Opening = Pick<ToolCallDelta, 'id' | 'name'>;

/** A call's item by how its tool was offered: a function call, or a custom tool call. */
const CALL_OUTPUTS: Readonly<Record<OfferedTool['kind'], new (callId: string, name: string, namespace: string | undefined) => StreamedOutput>> = {
  function: FunctionCallOutput,
  custom: CustomToolCallOutput,
};

/** The item of each kind, by name; a call's from the tool it calls (a function when not offered). */
const OUTPUTS: Readonly<Record<OutputKind, (opening: Opening, tools: OfferedTools) => StreamedOutput>> = {
  message: () => new MessageOutput(),
  reasoning: () => new ReasoningOutput(),
  function_call: (call, tools) => {
    const tool = tools.get(call.name ?? '');
    return new CALL_OUTPUTS[tool?.kind ?? 'function'](call.id ?? '', call.name ?? '', tool?.namespace);
  },
};

interface OpenOutput {
  kind: OutputKind;
  /** Which call a function_call item is; undefined for the other kinds. */
  key: number | undefined;
  item: StreamedOutput;
}

/** A Responses answer as the routes drive it: the events, and the warm-up ending of a `generate: false` response. */
export interface ResponseAnswer extends AnswerEvents {
  /** Completes the response with no output (WebSocket mode's `generate: false`). */
  finishUngenerated(): void;
}

export class ResponseEvents implements ResponseAnswer {
  private sequence = 0;
  /** The items closed so far, for the response's `output`. */
  private readonly output: Json[] = [];
  private open: OpenOutput | undefined;
  private messageSeen = false;
  private callsSeen = false;
  private final: Json | undefined;
  private readonly emit: Emit = (type, payload) => this.out.event(type, JSON.stringify({ type, sequence_number: this.sequence++, ...payload }));

  constructor(
    private readonly out: EventOut,
    private readonly head: ResponseHead,
    private readonly fold: ResponseFold,
    private readonly tools: OfferedTools = new Map(),
  ) {}

  /** response.created, then response.in_progress. */
  start(): void {
    const response = responseObject(this.head, { status: 'in_progress', output: [] });
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  delta(delta: ChoiceDelta): void {
    visitInWrittenOrder(delta, this.open?.key, {
      reasoning: (text) => this.outputOf('reasoning').append(this.emit, text),
      text: (text) => this.outputOf('message').append(this.emit, text),
      call: (piece) => this.callPiece(piece),
      callEnded: (index) => this.closeCall(index),
    });
  }

  finish(): void {
    // A response always carries the assistant's message (even an empty one) unless it made calls.
    if (!this.messageSeen && !this.callsSeen) this.outputOf('message');
    const choice = this.fold.choices()[0];
    const { status, incompleteReason } = finishedStatus(choice?.finishReason ?? null);
    this.closeOpen(status);
    this.end(status, incompleteReason);
  }

  /** Completes a response created without generating (a WebSocket `generate: false`): no output at all. */
  finishUngenerated(): void {
    this.end('completed', null);
  }

  /** The final Response object: completed, incomplete or failed; undefined until then. */
  result(): Json | undefined {
    return this.final;
  }

  fail(err: unknown): void {
    const response = responseObject(this.head, { status: 'failed', output: [], usage: this.fold.usage(), error: responseFailure(err) });
    this.final = response;
    this.emit('response.failed', { response });
    this.out.end();
  }

  /** Each call is a function_call item; its first piece opens it. */
  private callPiece(piece: ToolCallDelta): void {
    this.callsSeen = true;
    const item = this.outputOf('function_call', piece.index, piece);
    if (piece.arguments.length > 0) item.append(this.emit, piece.arguments);
  }

  /** A call's item is done as soon as the call is. */
  private closeCall(index: number): void {
    if (this.open?.kind === 'function_call' && this.open.key === index) this.closeOpen('completed');
  }

  /** The open item when it is of this kind (and call); otherwise the open one closes and a new one opens. */
  private outputOf(kind: OutputKind, key?: number, opening: Opening = {}): StreamedOutput {
    if (this.open?.kind === kind && this.open.key === key) return this.open.item;
    this.closeOpen('completed');
    const item = OUTPUTS[kind](opening, this.tools);
    this.open = { kind, key, item };
    if (kind === 'message') this.messageSeen = true;
    item.open(this.emit, this.output.length);
    return item;
  }

  /** The final event, completed or incomplete, with the output so far. */
  private end(status: ResponseStatus, incompleteReason: string | null): void {
    const response = responseObject(this.head, { status, output: this.output, usage: this.fold.usage(), incompleteReason });
    this.final = response;
    this.emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    this.out.end();
  }

  private closeOpen(status: ResponseStatus): void {
    if (!this.open) return;
    this.output.push(this.open.item.close(this.emit, status));
    this.open = undefined;
  }
}
