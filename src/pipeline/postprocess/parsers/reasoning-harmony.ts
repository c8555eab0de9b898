// gpt-oss writes harmony messages: `<|start|>assistant<|channel|>NAME …<|message|>BODY<|end|>`.
// The `analysis` channel is reasoning and `final` is the answer. Any other channel (`commentary`,
// where tool calls live) passes through verbatim, header and terminator included, so the harmony
// tool-call parser after this stage still sees the whole call. Several analysis messages are
// joined with a newline, as upstream does.

import { HeldTextParser } from './held-text-parser.js';
import { firstMarker, partialMarkerLength } from './marker-scan.js';
import type { ReasoningSplit } from './reasoning-parser.js';
import { honoringThinkingOptOut } from './thinking-opt-out.js';

const OPENERS = ['<|start|>', '<|channel|>'];
const MESSAGE = '<|message|>';
const TERMINATORS = ['<|end|>', '<|return|>', '<|call|>'];
const OPENERS_AND_TERMINATORS = [...OPENERS, ...TERMINATORS];
const SPECIAL_TOKENS = [...OPENERS_AND_TERMINATORS, MESSAGE, '<|constrain|>'];

/** Where a message body goes: reasoning, answer text, or verbatim (markup included) content. */
type BodyRoute = 'reasoning' | 'content' | 'verbatim';

const ROUTE_BY_CHANNEL: Record<string, BodyRoute> = { analysis: 'reasoning', final: 'content' };

/** The channel a header names: the word after its last `<|channel|>`. */
function channelOf(header: string): string {
  const at = header.lastIndexOf('<|channel|>');
  if (at < 0) return '';
  return /^[^\s<]*/.exec(header.slice(at + '<|channel|>'.length))?.[0] ?? '';
}

class HarmonyReasoningParser extends HeldTextParser {
  /** Between messages (null), reading a header (the header text so far), or in a body. */
  private header: string | null = null;
  private body: BodyRoute | null = null;
  private reasoningWritten = false;
  private separatePending = false;

  override finish(): ReasoningSplit {
    const out: ReasoningSplit = { reasoning: '', content: '' };
    if (this.header === null) this.write(out, this.body ?? 'content', this.held);
    this.held = '';
    return out;
  }

  protected override step(out: ReasoningSplit): boolean {
    if (this.header !== null) return this.stepInHeader(out);
    const hit = firstMarker(this.held, OPENERS_AND_TERMINATORS);
    if (hit === null) {
      const keep = partialMarkerLength(this.held, SPECIAL_TOKENS);
      this.write(out, this.body ?? 'content', this.held.slice(0, this.held.length - keep));
      this.held = this.held.slice(this.held.length - keep);
      return false;
    }
    this.write(out, this.body ?? 'content', this.held.slice(0, hit.index));
    this.held = this.held.slice(hit.index + hit.marker.length);
    if (TERMINATORS.includes(hit.marker)) {
      // Outside a message a terminator is stray markup and dropped.
      if (this.body === 'verbatim') out.content += hit.marker;
    } else {
      this.header = hit.marker;
    }
    this.body = null;
    return true;
  }

  /** Header text is markup: held until `<|message|>` names the channel, then dropped or passed. */
  private stepInHeader(out: ReasoningSplit): boolean {
    const hit = firstMarker(this.held, [MESSAGE, ...TERMINATORS]);
    if (hit === null) return false;
    if (hit.marker !== MESSAGE) {
      // A message without a body: nothing to show, and what follows is outside it again.
      this.held = this.held.slice(hit.index + hit.marker.length);
      this.header = null;
      return true;
    }
    const at = hit.index;
    const header = this.header + this.held.slice(0, at + MESSAGE.length);
    this.held = this.held.slice(at + MESSAGE.length);
    this.header = null;
    this.body = ROUTE_BY_CHANNEL[channelOf(header)] ?? 'verbatim';
    if (this.body === 'verbatim') out.content += header;
    if (this.body === 'reasoning' && this.reasoningWritten) this.separatePending = true;
    return true;
  }

  private write(out: ReasoningSplit, route: BodyRoute, text: string): void {
    if (text.length === 0) return;
    if (route !== 'reasoning') {
      out.content += text;
      return;
    }
    if (this.separatePending) out.reasoning += '\n';
    this.separatePending = false;
    this.reasoningWritten = true;
    out.reasoning += text;
  }
}

export const harmonyReasoning = honoringThinkingOptOut(() => new HarmonyReasoningParser());
