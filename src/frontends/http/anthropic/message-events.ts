// The named SSE events of a streamed message (Anthropic's streaming spec, reference/http.md §9.2):
// message_start, a ping, then per content block content_block_start / content_block_delta × N /
// content_block_stop (each block closed before the next opens), message_delta with the stop reason
// and usage, message_stop. A failure after the start is an `event: error` in Anthropic's envelope.
// A unary message runs the same events unwritten and answers the Message its blocks make.

import type { ChoiceDelta, ResponseFold, ToolCallDelta } from '../../../pipeline/index.js';
import { visitInWrittenOrder } from '../model-route/index.js';
import { anthropicStreamErrorJson } from '../error-envelope.js';
import type { AnswerEvents, EventOut } from '../model-route/index.js';
import { messageObject, messageStop, messageUsage, textBlock, thinkingBlock, toolUseBlock, type MessageHead } from './message-object.js';

type Json = Record<string, unknown>;

/**
 * One content block as it streams, opened by MessageEvents when the fold's delta first carries its
 * kind of content (text, the reasoning parser's thinking, the tool-call parser's tool_use); a block
 * with a `key` (a tool call's index) opens a new block when the key changes, so consecutive calls
 * each get their own.
 */
export interface StreamedBlock {
  /** The block as content_block_start announces it (empty text, empty input). */
  readonly start: Json;
  /** The block's delta payload for a fragment. */
  delta(fragment: string): Json;
  /** The whole block, for the message's content. */
  done(): Json;
}

export type BlockKind = 'text' | 'thinking' | 'tool_use';

/** What opens a block: a tool call's id and name (the first piece of the call). */
type Opening = Pick<ToolCallDelta, 'id' | 'name'>;

/** A block whose fragments make one string: `whole` builds the block from it. */
function accumulating(whole: (text: string) => Json, delta: (fragment: string) => Json): StreamedBlock {
  let text = '';
  return {
    start: whole(''),
    delta(fragment) {
      text += fragment;
      return delta(fragment);
    },
    done: () => whole(text),
  };
}

/** The block of each kind, by name. */
const BLOCKS: Readonly<Record<BlockKind, (opening: Opening) => StreamedBlock>> = {
  text: () => accumulating(textBlock, (text) => ({ type: 'text_delta', text })),
  thinking: () => accumulating(thinkingBlock, (thinking) => ({ type: 'thinking_delta', thinking })),
  // content_block_start announces the call with an empty input (no JSON yet reads as `{}`).
  tool_use: ({ id = '', name = '' }) =>
    accumulating((json) => toolUseBlock(id, name, json), (partial_json) => ({ type: 'input_json_delta', partial_json })),
};

interface OpenBlock {
  kind: BlockKind;
  key: number | undefined;
  block: StreamedBlock;
}

export class MessageEvents implements AnswerEvents {
  private open: OpenBlock | undefined;
  /** The blocks closed so far, for the message's content. */
  private readonly content: Json[] = [];
  private final: Json | undefined;
  private readonly emit = (type: string, payload: Json): void => this.out.event(type, JSON.stringify({ type, ...payload }));

  constructor(
    private readonly out: EventOut,
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
    visitInWrittenOrder(delta, this.open?.key, {
      reasoning: (text) => this.append('thinking', text),
      text: (text) => this.append('text', text),
      call: (piece) => this.append('tool_use', piece.arguments, piece.index, piece),
      callEnded: (index) => {
        if (this.open?.kind === 'tool_use' && this.open.key === index) this.closeBlock();
      },
    });
  }

  finish(): void {
    this.closeBlock();
    const choice = this.fold.choices()[0];
    const stop = messageStop(choice?.finishReason ?? null, choice?.stopReason ?? null, this.stopSequences);
    const usage = this.fold.usage();
    this.final = messageObject(this.head, this.content, stop, usage);
    this.emit('message_delta', { delta: { ...stop, stop_details: null }, usage: messageUsage(usage) });
    this.emit('message_stop', {});
    this.out.end();
  }

  result(): Json | undefined {
    return this.final;
  }

  fail(err: unknown): void {
    this.out.event('error', anthropicStreamErrorJson(err));
    this.out.end();
  }

  /**
   * Appends to the open block when it is this kind and key; otherwise closes it and opens a new one
   * (with `opening`). An empty fragment (a call's first piece) opens the block and sends no delta.
   */
  private append(kind: BlockKind, fragment: string, key?: number, opening: Opening = {}): void {
    let open = this.open;
    if (open?.kind !== kind || open.key !== key) {
      this.closeBlock();
      open = { kind, key, block: BLOCKS[kind](opening) };
      this.open = open;
      this.emit('content_block_start', { index: this.content.length, content_block: open.block.start });
    }
    if (fragment.length > 0) this.emit('content_block_delta', { index: this.content.length, delta: open.block.delta(fragment) });
  }

  private closeBlock(): void {
    if (!this.open) return;
    this.emit('content_block_stop', { index: this.content.length });
    this.content.push(this.open.block.done());
    this.open = undefined;
  }
}
