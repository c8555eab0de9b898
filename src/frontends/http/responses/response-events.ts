// The typed SSE events of a streamed response (OpenAI's Responses streaming spec): every frame is
// `event: <type>` + `data: {"type", "sequence_number", ...}`; the stream ends after the terminal
// event (response.completed, response.incomplete or response.failed), with no `[DONE]`.

import type { ChoiceDelta, ResponseFold } from '../../../pipeline/index.js';
import type { StreamSink } from '../generation-route.js';
import type { SseWriter } from '../sse-writer.js';
import {
  finishedStatus,
  messageItem,
  newItemId,
  outputText,
  responseFailure,
  responseObject,
  type ResponseHead,
  type ResponseStatus,
} from './response-object.js';

type Json = Record<string, unknown>;
type Emit = (type: string, payload: Json) => void;

/**
 * One output item as it streams. The assistant's text is a MessageOutput; the reasoning and
 * function-call items of the output parsers (not built yet) implement this too, each opened by ResponseEvents
 * when the fold's delta first carries its kind of content.
 */
interface StreamedOutput {
  /** Writes the item's opening events. */
  open(emit: Emit, outputIndex: number): void;
  /** Writes its closing events; returns the finished item for the response's `output`. */
  close(emit: Emit, outputIndex: number, status: ResponseStatus): Json;
}

class MessageOutput implements StreamedOutput {
  private readonly id = newItemId('msg');
  private text = '';
  private outputIndex = 0;

  open(emit: Emit, outputIndex: number): void {
    this.outputIndex = outputIndex;
    emit('response.output_item.added', { output_index: outputIndex, item: { id: this.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    emit('response.content_part.added', { ...this.at(), part: outputText('') });
  }

  append(emit: Emit, text: string): void {
    this.text += text;
    emit('response.output_text.delta', { ...this.at(), delta: text, logprobs: [] });
  }

  close(emit: Emit, outputIndex: number, status: ResponseStatus): Json {
    emit('response.output_text.done', { ...this.at(), text: this.text, logprobs: [] });
    emit('response.content_part.done', { ...this.at(), part: outputText(this.text) });
    const item = messageItem(this.id, this.text, status);
    emit('response.output_item.done', { output_index: outputIndex, item });
    return item;
  }

  private at(): Json {
    return { item_id: this.id, output_index: this.outputIndex, content_index: 0 };
  }
}

export class ResponseEvents implements StreamSink {
  private sequence = 0;
  private readonly items: StreamedOutput[] = [];
  private message: MessageOutput | undefined;
  private readonly emit: Emit = (type, payload) => this.sse.event(type, JSON.stringify({ type, sequence_number: this.sequence++, ...payload }));

  constructor(
    private readonly sse: SseWriter,
    private readonly head: ResponseHead,
    private readonly fold: ResponseFold,
  ) {}

  /** response.created, then response.in_progress. */
  start(): void {
    const response = responseObject(this.head, { status: 'in_progress', output: [] });
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  delta(delta: ChoiceDelta): void {
    if (delta.text.length > 0) this.messageOutput().append(this.emit, delta.text);
  }

  finish(): void {
    // A response always carries the assistant's message, even an empty one.
    this.messageOutput();
    const choice = this.fold.choices()[0];
    const { status, incompleteReason } = finishedStatus(choice?.finishReason ?? null);
    const output = this.items.map((item, i) => item.close(this.emit, i, status));
    const response = responseObject(this.head, { status, output, usage: this.fold.usage(), incompleteReason });
    this.emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    this.sse.end();
  }

  fail(err: unknown): void {
    this.emit('response.failed', { response: responseObject(this.head, { status: 'failed', output: [], usage: this.fold.usage(), error: responseFailure(err) }) });
    this.sse.end();
  }

  private messageOutput(): MessageOutput {
    if (this.message) return this.message;
    this.message = new MessageOutput();
    this.openItem(this.message);
    return this.message;
  }

  private openItem(item: StreamedOutput): void {
    this.items.push(item);
    item.open(this.emit, this.items.length - 1);
  }
}
