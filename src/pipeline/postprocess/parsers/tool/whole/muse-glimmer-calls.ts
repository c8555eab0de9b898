// Muse Glimmer writes its turn as messages to recipients, each `<|start|>assistant to=NAME<|message|>`
// … `<|eom|>` (more follows) or `<|eot|>` (the turn ends); the turn's first message comes without
// `<|start|>assistant`, which the prompt wrote. `to=self` is reasoning, `to=user` (or no recipient)
// the answer, any other recipient a tool whose body holds ATEM calls:
//
//   <atem:function_calls>
//   <atem:invoke name="get_weather"><atem:parameter name="city">Paris</atem:parameter></atem:invoke>
//   </atem:function_calls>
//
// As upstream's parser on its own: calls are read only from tool messages (ATEM quoted in the answer
// or the reasoning stays what it was), each released once its invoke closes; a value is the JSON it
// spells, else its text as written; a name the chat template doubled (`f.f`) is `f` when the request
// offers `f`. Reasoning messages are dropped (upstream's reasoning stage owns them), the answer
// streams, framing never reaches it, and an invoke the stream cuts off is dropped. A reasoning
// message that runs into a tool header without `<|eom|>` ends there, as upstream recovers it.

import { firstMarker, partialMarkerLength } from '../../marker-scan.js';
import { HeldToolParser } from '../held-parser.js';
import type { ToolCallParser, ToolCallParserOptions, ToolParseItem, ToolSpec } from '../parser.js';

const START = '<|start|>';
const MESSAGE = '<|message|>';
const TERMINATORS = ['<|eom|>', '<|eot|>'];
const FRAMING = [START, MESSAGE, ...TERMINATORS];
/** A header with no `<|message|>` after this much text was none. */
const MAX_HEADER = 256;

const INVOKE_OPEN = /<atem:invoke\b[^>]*?\bname="([^"]+)"[^>]*?>/g;
const INVOKE_CLOSE = '</atem:invoke>';
const PARAMETER = /<atem:parameter\b[^>]*?\bname="([^"]+)"[^>]*?>([\s\S]*?)<\/atem:parameter>/g;
/** The turn's first message: `to=NAME<|message|>` (or a bare `<|message|>`) after optional space. */
const LEAD_HEADER = /^\s*(?:to=([^\s<]+))?<\|message\|>/;
/** A tool header a reasoning message runs into: `to=` at its start or after whitespace. */
const BARE_HEADER = /(?:^|\s)to=([^\s<]+)<\|message\|>/;

type State = 'lead' | 'content' | 'header' | 'answer' | 'thought' | 'tool';

/** The recipient a header names (`assistant to=get_weather`, right before `<|message|>`), when it names one. */
function recipientOf(header: string): string | undefined {
  return /to=([^\s<]+)$/.exec(header)?.[1];
}

/** Could `text` still grow into the turn's first header? */
function mayBeLeadHeader(text: string): boolean {
  const t = text.trimStart();
  if (t === '' || START.startsWith(t) || MESSAGE.startsWith(t) || 'to='.startsWith(t)) return true;
  const header = /^to=([^\s<]*)(.*)$/s.exec(t);
  if (header === null) return false;
  const rest = header[2] ?? '';
  return rest === '' || ((header[1] ?? '') !== '' && MESSAGE.startsWith(rest));
}

function decodeValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

class MuseGlimmerToolParser extends HeldToolParser<State> {
  protected state: State = 'lead';
  protected readonly steps: Record<State, () => boolean> = {
    lead: () => this.stepLead(),
    content: () => this.stepContent(),
    header: () => this.stepHeader(),
    answer: () => this.stepAnswer(),
    thought: () => this.stepThought(),
    tool: () => this.stepTool(),
  };
  private readonly tools: readonly ToolSpec[];

  constructor(options: ToolCallParserOptions) {
    super(options);
    this.tools = options.tools;
  }

  override finish(): ToolParseItem[] {
    if (this.state === 'lead' || this.state === 'content' || this.state === 'answer') this.items.content(this.held);
    // A header that never got its message is text, its framing dropped.
    else if (this.state === 'header') this.items.content(this.held.replace(/^\s*assistant\b/, ''));
    this.held = '';
    this.state = 'content';
    return this.items.take();
  }

  private stepLead(): boolean {
    const header = LEAD_HEADER.exec(this.held);
    if (header !== null) {
      this.held = this.held.slice(header[0].length);
      this.enterBody(header[1]);
      return true;
    }
    if (this.held.trimStart().startsWith(START)) {
      this.held = this.held.trimStart().slice(START.length);
      this.state = 'header';
      return true;
    }
    if (mayBeLeadHeader(this.held) && this.held.length <= MAX_HEADER) return false;
    this.state = 'content';
    return true;
  }

  /** Between messages: text is answer, stray framing is dropped, `<|start|>` opens a header. */
  private stepContent(): boolean {
    const hit = this.contentUntil(FRAMING);
    if (hit === null) return false;
    if (hit.marker === START) this.state = 'header';
    return true;
  }

  private stepHeader(): boolean {
    const hit = firstMarker(this.held, [MESSAGE, START]);
    if (hit === null) {
      if (this.held.length <= MAX_HEADER) return false;
      this.state = 'content';
      return true;
    }
    const header = this.held.slice(0, hit.index);
    this.held = this.held.slice(hit.index + hit.marker.length);
    if (hit.marker === START) {
      // A header abandoned for another: its text stays text.
      this.items.content(header.replace(/^\s*assistant\b/, ''));
      return true;
    }
    this.enterBody(recipientOf(header));
    return true;
  }

  private enterBody(recipient: string | undefined): void {
    this.state = recipient === undefined || recipient === 'user' ? 'answer' : recipient === 'self' ? 'thought' : 'tool';
  }

  /** A message's end: `<|start|>` (a new header) or a terminator. */
  private endBody(marker: string): void {
    this.state = marker === START ? 'header' : 'content';
  }

  private stepAnswer(): boolean {
    const hit = this.contentUntil([START, ...TERMINATORS]);
    if (hit === null) return false;
    this.endBody(hit.marker);
    return true;
  }

  /** Reasoning is dropped, up to its end or a tool header it runs into. */
  private stepThought(): boolean {
    const end = firstMarker(this.held, [START, ...TERMINATORS]);
    const searched = end === null ? this.held : this.held.slice(0, end.index);
    const header = BARE_HEADER.exec(searched);
    if (header !== null) {
      this.held = this.held.slice(header.index + header[0].length);
      this.enterBody(header[1]);
      return true;
    }
    if (end !== null) {
      this.held = this.held.slice(end.index + end.marker.length);
      this.endBody(end.marker);
      return true;
    }
    // Keep only what could still become a header or a marker: from the last whitespace on.
    const space = Math.max(this.held.lastIndexOf(' '), this.held.lastIndexOf('\n'), this.held.lastIndexOf('\t'));
    const keep = Math.max(space < 0 ? this.held.length : this.held.length - space, partialMarkerLength(this.held, FRAMING));
    if (keep <= MAX_HEADER) this.held = this.held.slice(this.held.length - keep);
    else this.held = this.held.slice(this.held.length - partialMarkerLength(this.held, FRAMING));
    return false;
  }

  /** A tool message: each invoke is a call once it closes; other text in it is dropped. */
  private stepTool(): boolean {
    for (;;) {
      const end = firstMarker(this.held, [START, ...TERMINATORS]);
      const body = end === null ? this.held : this.held.slice(0, end.index);
      INVOKE_OPEN.lastIndex = 0;
      const open = INVOKE_OPEN.exec(body);
      const close = open === null ? -1 : body.indexOf(INVOKE_CLOSE, open.index + open[0].length);
      if (open !== null && close >= 0) {
        this.call(open[1]!, body.slice(open.index + open[0].length, close));
        this.held = this.held.slice(close + INVOKE_CLOSE.length);
        continue;
      }
      if (end !== null) {
        this.held = this.held.slice(end.index + end.marker.length);
        this.endBody(end.marker);
        return true;
      }
      // Wait for the open invoke to close, or for one to begin: the text before is dropped.
      const from = open?.index ?? this.held.lastIndexOf('<');
      this.held = from < 0 ? '' : this.held.slice(from);
      return false;
    }
  }

  private call(emitted: string, body: string): void {
    const args: Record<string, unknown> = {};
    for (const [, key, raw] of body.matchAll(PARAMETER)) args[key!] = decodeValue(raw!);
    this.items.wholeCall({ name: this.toolName(emitted), arguments: JSON.stringify(args) });
  }

  /** `f.f` is `f` when the request offers `f` and not `f.f` (the template doubles the namespace). */
  private toolName(emitted: string): string {
    const names = this.tools.map((tool) => tool.name);
    if (names.length === 0 || names.includes(emitted)) return emitted;
    const [head, tail, ...more] = emitted.split('.');
    return more.length === 0 && head === tail && head !== undefined && names.includes(head) ? head : emitted;
  }
}

export const museGlimmerToolCallParser = (options: ToolCallParserOptions): ToolCallParser => new MuseGlimmerToolParser(options);
