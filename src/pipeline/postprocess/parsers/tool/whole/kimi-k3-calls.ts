// Kimi K3 writes its reply as XTML channels (Moonshot's encoding_k3):
//
//   <|open|>response<|sep|>I'll check.<|close|>response<|sep|>
//   <|open|>tools<|sep|>
//     <|open|>call tool="get_weather" index="1"<|sep|>
//       <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//     <|close|>call<|sep|>
//   <|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
//
// As upstream: the response channel (or text outside any channel, until a response channel closed)
// is the answer and streams; a call is released once it closes, with the id `tool:index-1`;
// arguments are typed by their `type` attribute (a `json` body is taken as written); text after
// the message closes is dropped, and so is other channel markup. A call cut off by the end of the stream is kept only when its last
// argument closed; a call without a tool name, or with a body that does not read, is dropped.
// Engines that put spaces between special tokens write `<|open|> tools <|sep|>`: read the same.

import { firstMarker, partialMarkerLength, type MarkerHit } from '../../marker-scan.js';
import { HeldToolParser } from '../held-parser.js';
import type { ToolCallParser, ToolCallParserOptions, ToolParseItem, WholeCall } from '../parser.js';

const SEP = '<|sep|>';
const RESPONSE_OPEN = '<|open|>response<|sep|>';
const RESPONSE_CLOSE = '<|close|>response<|sep|>';
const TOOLS_OPEN = '<|open|>tools<|sep|>';
const TOOLS_CLOSE = '<|close|>tools<|sep|>';
const CALL_OPEN = '<|open|>call';
const CALL_CLOSE = '<|close|>call<|sep|>';
const ARGUMENT_OPEN = '<|open|>argument';
const ARGUMENT_CLOSE = '<|close|>argument<|sep|>';
const JSON_OPEN = '<|open|>json';
const JSON_CLOSE = '<|close|>json<|sep|>';
const MESSAGE_OPEN = '<|open|>message';
const MESSAGE_CLOSE = '<|close|>message<|sep|>';
const THINK_CLOSE = '<|close|>think<|sep|>';
const END_OF_MSG = '<|end_of_msg|>';

/** The spaced spellings of the channel markers, by their canonical one. */
const SPACED: ReadonlyMap<string, string> = new Map(
  [
    ['open', 'response'],
    ['close', 'response'],
    ['open', 'tools'],
    ['close', 'tools'],
    ['close', 'call'],
    ['close', 'argument'],
    ['close', 'json'],
    ['close', 'message'],
  ]
    .map(([side, name]): [string, string] => [`<|${side}|> ${name} <|sep|>`, `<|${side}|>${name}<|sep|>`])
    .concat([
      ['<|open|> call', CALL_OPEN],
      ['<|open|> argument', ARGUMENT_OPEN],
      ['<|open|> json', JSON_OPEN],
      ['<|open|> message', MESSAGE_OPEN],
    ]),
);
const SPACED_MARKERS = [...SPACED.keys()];

/** Rewrites the spaced markers to the canonical ones as text streams, holding a tail that may be one. */
class SpacedMarkers {
  private held = '';

  push(text: string): string {
    this.held += text;
    let out = '';
    for (let hit = firstMarker(this.held, SPACED_MARKERS); hit !== null; hit = firstMarker(this.held, SPACED_MARKERS)) {
      out += this.held.slice(0, hit.index) + SPACED.get(hit.marker)!;
      this.held = this.held.slice(hit.index + hit.marker.length);
    }
    const keep = partialMarkerLength(this.held, SPACED_MARKERS);
    out += this.held.slice(0, this.held.length - keep);
    this.held = this.held.slice(this.held.length - keep);
    return out;
  }

  finish(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** `key="value"` pairs (`&quot;` and `&amp;` unescaped); null when the text is not only such pairs. */
function attributes(text: string): Map<string, string> | null {
  const found = new Map<string, string>();
  const pair = /\s*([\p{L}\p{N}_]+)="([^"]*)"/uy;
  let at = 0;
  while (text.slice(at).trim() !== '') {
    pair.lastIndex = at;
    const match = pair.exec(text);
    if (match === null) return null;
    if (!found.has(match[1]!)) found.set(match[1]!, match[2]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
    at = pair.lastIndex;
  }
  return found;
}

/** JSON text with its insignificant whitespace removed, nothing else touched (key order, number spelling). */
function compactJson(raw: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of raw) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (!/\s/.test(ch)) out += ch;
  }
  return out;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A call's body as its arguments JSON text; null when it does not read. */
function callArguments(body: string): string | null {
  const text = body.trim();
  if (text === '') return '{}';
  if (text.startsWith(JSON_OPEN)) {
    const valueStart = text.indexOf(SEP);
    const close = valueStart < 0 ? -1 : text.indexOf(JSON_CLOSE, valueStart);
    if (close < 0 || text.slice(close + JSON_CLOSE.length).trim() !== '') return null;
    return text.slice(valueStart + SEP.length, close);
  }
  const members = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    at += text.slice(at).length - text.slice(at).trimStart().length;
    if (at >= text.length) break;
    if (!text.startsWith(ARGUMENT_OPEN, at)) return null;
    const tagEnd = text.indexOf(SEP, at);
    const attrs = tagEnd < 0 ? null : attributes(text.slice(at + ARGUMENT_OPEN.length, tagEnd));
    const close = tagEnd < 0 ? -1 : text.indexOf(ARGUMENT_CLOSE, tagEnd + SEP.length);
    if (attrs === null || close < 0) return null;
    const raw = text.slice(tagEnd + SEP.length, close);
    const type = attrs.get('type') ?? 'string';
    members.set(attrs.get('key') ?? '', type !== 'string' && isJson(raw) ? compactJson(raw) : JSON.stringify(raw));
    at = close + ARGUMENT_CLOSE.length;
  }
  return `{${[...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** A call from the text after `<|open|>call` up to its close; null when it does not read or has no name. */
function readCall(text: string): WholeCall | null {
  const tagEnd = text.indexOf(SEP);
  const attrs = tagEnd < 0 ? null : attributes(text.slice(0, tagEnd));
  const args = attrs === null ? null : callArguments(text.slice(tagEnd + SEP.length));
  const name = attrs?.get('tool') ?? '';
  if (args === null || name === '') return null;
  const index = attrs?.get('index') ?? '';
  const id = index === '' ? name : /^[-+]?\d+$/.test(index) ? `${name}:${Number(index) - 1}` : `${name}:${index}`;
  return { name, arguments: args, id };
}

/** Markup that is no answer text: dropped wherever the answer streams. */
const STRAY = [THINK_CLOSE, RESPONSE_CLOSE, TOOLS_CLOSE, CALL_CLOSE, ARGUMENT_CLOSE, JSON_CLOSE];
/** What ends the message: everything after it is dropped. */
const MESSAGE_ENDS = [MESSAGE_CLOSE, END_OF_MSG];

type State = 'content' | 'response' | 'header' | 'tools' | 'call' | 'epilogue';

class KimiK3ToolParser extends HeldToolParser<State> {
  protected state: State = 'content';
  protected readonly steps: Record<State, () => boolean> = {
    content: () => this.stepText([RESPONSE_OPEN, TOOLS_OPEN, CALL_OPEN, MESSAGE_OPEN, ...MESSAGE_ENDS, ...STRAY]),
    response: () => this.stepText([RESPONSE_CLOSE, TOOLS_OPEN, ...MESSAGE_ENDS, THINK_CLOSE]),
    header: () => this.stepHeader(),
    tools: () => this.stepTools(),
    call: () => this.stepCall(),
    epilogue: () => {
      this.held = '';
      return false;
    },
  };
  private readonly spaced = new SpacedMarkers();
  /** The response channel closed: text outside it from now on is epilogue, dropped as upstream drops it. */
  private answered = false;
  /** A bare call (outside a tools section) is being read. */
  private bare = false;

  override push(text: string): ToolParseItem[] {
    return super.push(this.spaced.push(text));
  }

  override finish(): ToolParseItem[] {
    const settled = super.push(this.spaced.finish());
    if ((this.state === 'content' && !this.answered) || this.state === 'response') this.items.content(this.held);
    else if (this.state === 'call') this.recoverCall(this.held);
    this.held = '';
    this.state = 'content';
    return [...settled, ...this.items.take()];
  }

  /** Answer text up to the next marker; what the marker does decides the next state. */
  private stepText(markers: readonly string[]): boolean {
    const hit = this.state === 'content' && this.answered ? this.dropUntil(markers) : this.contentUntil(markers);
    if (hit === null) return false;
    if (hit.marker === RESPONSE_CLOSE) this.answered = true;
    if (MESSAGE_ENDS.includes(hit.marker)) this.state = 'epilogue';
    else if (hit.marker === RESPONSE_OPEN) this.state = 'response';
    else if (hit.marker === TOOLS_OPEN) this.state = 'tools';
    else if (hit.marker === MESSAGE_OPEN) this.state = 'header';
    else if (hit.marker === CALL_OPEN) this.openCall(true);
    else if (hit.marker === RESPONSE_CLOSE) this.state = 'content';
    return true;
  }

  /** Drops the held text up to the first of `markers` and the marker; null when none has come. */
  private dropUntil(markers: readonly string[]): MarkerHit | null {
    const hit = firstMarker(this.held, markers);
    this.held = hit === null ? this.held.slice(this.held.length - partialMarkerLength(this.held, markers)) : this.held.slice(hit.index + hit.marker.length);
    return hit;
  }

  /** `<|open|>message …<|sep|>`: its attributes are dropped. */
  private stepHeader(): boolean {
    const end = this.held.indexOf(SEP);
    if (end < 0) return false;
    this.held = this.held.slice(end + SEP.length);
    this.state = 'content';
    return true;
  }

  /** Between calls: only calls count; the section's close (or the message's) ends it. */
  private stepTools(): boolean {
    const hit = firstMarker(this.held, [CALL_OPEN, TOOLS_CLOSE, ...MESSAGE_ENDS]);
    if (hit === null) {
      this.held = this.held.slice(this.held.length - partialMarkerLength(this.held, [CALL_OPEN, TOOLS_CLOSE, ...MESSAGE_ENDS]));
      return false;
    }
    this.held = this.held.slice(hit.index + hit.marker.length);
    if (hit.marker === CALL_OPEN) this.openCall(false);
    else this.state = hit.marker === TOOLS_CLOSE ? 'content' : 'epilogue';
    return true;
  }

  private openCall(bare: boolean): void {
    this.bare = bare;
    this.state = 'call';
  }

  /** A call runs to its close; a new call or the section's close before it leaves it unread (dropped). */
  private stepCall(): boolean {
    const hit = firstMarker(this.held, [CALL_CLOSE, CALL_OPEN, TOOLS_CLOSE, ...MESSAGE_ENDS]);
    if (hit === null) return false;
    const body = this.held.slice(0, hit.index);
    this.held = this.held.slice(hit.index + hit.marker.length);
    if (hit.marker === CALL_CLOSE) {
      const call = readCall(body);
      if (call !== null) this.items.wholeCall(call);
      this.state = this.bare ? 'content' : 'tools';
    } else if (hit.marker === CALL_OPEN) {
      this.openCall(this.bare);
    } else if (hit.marker === TOOLS_CLOSE) {
      this.state = 'content';
    } else {
      // The message ended with the call open.
      this.recoverCall(body);
      this.state = 'epilogue';
    }
    return true;
  }

  /** A call left open is kept when its body ends with a closed argument (or JSON body). */
  private recoverCall(text: string): void {
    const body = text.trimEnd();
    if (!body.endsWith(ARGUMENT_CLOSE) && !body.endsWith(JSON_CLOSE)) return;
    const call = readCall(body);
    if (call !== null) this.items.wholeCall(call);
  }
}

export const kimiK3ToolCallParser = (options: ToolCallParserOptions): ToolCallParser => new KimiK3ToolParser(options);
