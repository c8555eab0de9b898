// The named SSE events of a streamed message (Anthropic's streaming spec, reference/http.md §9.2):
// message_start, a ping, then per content block content_block_start / content_block_delta × N /
// content_block_stop (each block closed before the next opens), message_delta with the stop reason
// and usage, message_stop. A failure after the start is an `event: error` in Anthropic's envelope.

import type { ChoiceDelta, ResponseFold } from '../../../pipeline/index.js';
import { anthropicStreamErrorJson } from '../error-envelope.js';
import type { StreamSink } from '../generation-route.js';
import type { SseWriter } from '../sse-writer.js';
import { messageObject, messageStop, messageUsage, textBlock, thinkingBlock, type MessageHead } from './message-object.js';

type Json = Record<string, unknown>;

/**
 * One content block as it streams, opened by MessageEvents when the fold's delta first carries its
 * kind of content (text, the reasoning parser's thinking; the tool-call parser's tool_use, with
 * `input_json_delta`, is one more kind); a block with a `key` (a tool call's id) opens a new block
 * when the key changes, so consecutive calls each get their own.
 */
export interface StreamedBlock {
  /** The block as content_block_start announces it (empty text, empty input). */
  readonly start: Json;
  /** The block's delta payload for a fragment. */
  delta(fragment: string): Json;
}

export type BlockKind = 'text' | 'thinking';

/** The block of each kind, by name. */
const BLOCKS: Readonly<Record<BlockKind, () => StreamedBlock>> = {
  text: () => ({ start: textBlock(''), delta: (text) => ({ type: 'text_delta', text }) }),
  thinking: () => ({ start: thinkingBlock(''), delta: (thinking) => ({ type: 'thinking_delta', thinking }) }),
};

interface OpenBlock {
  kind: BlockKind;
  key: string | undefined;
  block: StreamedBlock;
}

export class MessageEvents implements StreamSink {
  private open: OpenBlock | undefined;
  private blocks = 0;
  private readonly emit = (type: string, payload: Json): void => this.sse.event(type, JSON.stringify({ type, ...payload }));

  constructor(
    private readonly sse: SseWriter,
    private readonly head: MessageHead,
    private readonly fold: ResponseFold,
    private readonly stopSequences: readonly string[],
  ) {}

  /** message_start with the empty message and the prompt's usage, then a ping (as Anthropic sends). */
  start(): void {
    this.emit('message_start', { message: messageObject(this.head, [], null, this.fold.usage()) });
    this.emit('ping', {});
  }

  delta(delta: ChoiceDelta): void {
    if (delta.reasoning.length > 0) this.append('thinking', delta.reasoning);
    if (delta.text.length > 0) this.append('text', delta.text);
  }

  finish(): void {
    this.closeBlock();
    const choice = this.fold.choices()[0];
    const stop = messageStop(choice?.finishReason ?? null, choice?.stopReason ?? null, this.stopSequences);
    this.emit('message_delta', { delta: { ...stop, stop_details: null }, usage: messageUsage(this.fold.usage()) });
    this.emit('message_stop', {});
    this.sse.end();
  }

  fail(err: unknown): void {
    this.sse.event('error', anthropicStreamErrorJson(err));
    this.sse.end();
  }

  /** Appends to the open block when it is this kind and key; otherwise closes it and opens a new one. */
  private append(kind: BlockKind, fragment: string, key?: string): void {
    let open = this.open;
    if (open?.kind !== kind || open.key !== key) {
      this.closeBlock();
      open = { kind, key, block: BLOCKS[kind]() };
      this.open = open;
      this.emit('content_block_start', { index: this.blocks, content_block: open.block.start });
    }
    this.emit('content_block_delta', { index: this.blocks, delta: open.block.delta(fragment) });
  }

  private closeBlock(): void {
    if (!this.open) return;
    this.emit('content_block_stop', { index: this.blocks });
    this.open = undefined;
    this.blocks++;
  }
}
