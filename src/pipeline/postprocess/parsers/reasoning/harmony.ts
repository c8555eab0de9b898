// gpt-oss writes harmony messages: `<|start|>assistant<|channel|>NAME …<|message|>BODY<|end|>`.
// The `analysis` channel is reasoning and `final` is the answer; a `commentary` message without a
// recipient is a preamble the user sees before a call, so it is answer text too. Any other message
// (a commentary message `to=functions.x` is a tool call) passes through verbatim, header and
// terminator included, so the harmony tool-call parser after this stage still sees the whole call.
// Several analysis messages are joined with a newline, and so are several answer messages (a
// preamble and the final answer), as upstream does.

import { HeldTextParser } from './held-text-parser.js';
import { firstMarker, partialMarkerLength } from '../marker-scan.js';
import type { ReasoningParserFactory, ReasoningSplit } from './parser.js';

const OPENERS = ['<|start|>', '<|channel|>'];
const MESSAGE = '<|message|>';
const TERMINATORS = ['<|end|>', '<|return|>', '<|call|>'];
const OPENERS_AND_TERMINATORS = [...OPENERS, ...TERMINATORS];
const SPECIAL_TOKENS = [...OPENERS_AND_TERMINATORS, MESSAGE, '<|constrain|>'];

/** Where a message body goes: reasoning, answer text, or verbatim (markup included) content. */
type BodyRoute = 'reasoning' | 'content' | 'verbatim';

const ROUTE_BY_CHANNEL: Record<string, BodyRoute> = { analysis: 'reasoning', final: 'content', commentary: 'content' };

/** The channel a header names: the word after its last `<|channel|>`. */
function channelOf(header: string): string {
  const at = header.lastIndexOf('<|channel|>');
  if (at < 0) return '';
  return /^[^\s<]*/.exec(header.slice(at + '<|channel|>'.length))?.[0] ?? '';
}

/** A message addressed to someone (`to=functions.x`, before or after the channel) is a call, never text. */
const RECIPIENT = /(?:^|[\s>])to=/;

function routeOf(header: string): BodyRoute {
  return RECIPIENT.test(header) ? 'verbatim' : (ROUTE_BY_CHANNEL[channelOf(header)] ?? 'verbatim');
}

class HarmonyReasoningParser extends HeldTextParser {
  /** Between messages (null), reading a header (the header text so far), or in a body. */
  private header: string | null = null;
  private body: BodyRoute | null = null;
  /** What a message body of each route has written, so the next message of that route is set apart. */
  private readonly written: Record<BodyRoute, boolean> = { reasoning: false, content: false, verbatim: false };
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
    this.body = routeOf(header);
    if (this.body === 'verbatim') out.content += header;
    this.separatePending = this.written[this.body] && this.body !== 'verbatim';
    return true;
  }

  private write(out: ReasoningSplit, route: BodyRoute, text: string): void {
    if (text.length === 0) return;
    const field = route === 'reasoning' ? 'reasoning' : 'content';
    if (this.separatePending) out[field] += '\n';
    this.separatePending = false;
    // Text outside any message (`this.body` null) is stray and sets nothing apart.
    if (this.body !== null) this.written[route] = true;
    out[field] += text;
  }
}

/** The channels decide what is reasoning, whatever the prompt ended with. */
export const harmonyReasoning: ReasoningParserFactory = () => new HarmonyReasoningParser();
