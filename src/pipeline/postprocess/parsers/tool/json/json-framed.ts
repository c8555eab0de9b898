// The JSON tool-call formats share one shape: content, then a start marker (or, for some, bare JSON
// at the start of the message), a JSON body of calls, optional separators and more bodies, an
// optional end marker, and content again. Only the markers and the body differ (json-formats.ts).

import { firstMarker, partialMarkerLength } from '../../marker-scan.js';
import { CallNumbering, upstreamCallId, type ItemSink } from '../call-items.js';
import type { ToolCallParser, ToolCallParserOptions, ToolParseItem } from '../parser.js';
import type { CallBodyReader, CallEvent } from './json-stream.js';

export interface JsonToolFormat {
  /** Markers opening a body. */
  starts: readonly string[];
  /** Markers closing a body; none when the body simply ends (the format has no end marker). */
  ends: readonly string[];
  /** Reads one body; `bare` when it starts without a marker. */
  body(bare: boolean): CallBodyReader;
  /** Separates bodies written one after another (llama3's `;`). */
  separator?: string;
  /** A message that starts (after whitespace) with `{` or `[` is a body without a start marker. */
  bareAtStart?: boolean;
  /**
   * A body's calls are released only once its end marker closes it; a body that is not a call,
   * breaks, or is still open when the stream ends is dropped, markers and all (Qwen2.5's
   * "never leak tool-call markup", as upstream's qwen25).
   */
  wholeBodies?: boolean;
}

type Mode = 'content' | 'body' | 'after' | 'between' | 'skip' | 'discard';

export class JsonToolCallParser implements ToolCallParser {
  private held = '';
  private mode: Mode = 'content';
  private reader: CallBodyReader | null = null;
  /** The marker that opened the body being read, released with it if it is not a call. */
  private opener = '';
  /** Content other than whitespace was released: bare JSON no longer opens a body. */
  private textSeen = false;
  private readonly numbering: CallNumbering;
  /** With `wholeBodies`: the events of the open body, given once its end marker comes. */
  private pending: CallEvent[] = [];

  constructor(
    private readonly format: JsonToolFormat,
    options: ToolCallParserOptions,
  ) {
    this.numbering = new CallNumbering(options.newCallId ?? upstreamCallId);
  }

  push(text: string): ToolParseItem[] {
    const sink = this.numbering.sink();
    this.held += text;
    while (this.held.length > 0 && this.step(sink));
    return sink.items;
  }

  finish(): ToolParseItem[] {
    const sink = this.numbering.sink();
    if (this.format.wholeBodies === true && this.mode !== 'content' && this.mode !== 'between') {
      // An open body never closed: dropped, with its calls.
      this.pending = [];
    } else if (this.mode === 'body') {
      const reader = this.reader!;
      const events: CallEvent[] = [];
      reader.finish(events);
      sink.events(events);
      if (reader.state === 'not_call') sink.content(this.opener);
      sink.content(reader.leftover());
      sink.content(this.held);
    } else if (this.mode === 'content' || this.held.trim() !== '') {
      sink.content(this.held);
    }
    this.held = '';
    return sink.items;
  }

  /** Settles what it can of the held text; false when the rest must wait for more. */
  private step(sink: ItemSink): boolean {
    switch (this.mode) {
      case 'content':
        return this.contentStep(sink);
      case 'body':
        return this.bodyStep(sink);
      case 'after':
        return this.afterStep(sink);
      case 'between':
        return this.betweenStep();
      case 'skip':
        return this.skipStep(sink);
      case 'discard':
        return this.discardStep();
    }
  }

  private contentStep(sink: ItemSink): boolean {
    if (this.format.bareAtStart && !this.textSeen) {
      const body = this.held.trimStart();
      if (body === '') return this.release(sink, this.held.length);
      if (body[0] === '{' || body[0] === '[') {
        this.release(sink, this.held.length - body.length);
        return this.openBody('', true);
      }
    }
    const hit = firstMarker(this.held, this.format.starts);
    if (hit !== null) {
      this.release(sink, hit.index);
      return this.openBody(hit.marker, false);
    }
    this.release(sink, this.held.length - partialMarkerLength(this.held, this.format.starts));
    return false;
  }

  private bodyStep(sink: ItemSink): boolean {
    const reader = this.reader!;
    const events: CallEvent[] = [];
    const taken = reader.feed(this.held, events);
    this.held = this.held.slice(taken);
    if (this.format.wholeBodies === true) return this.wholeBodyStep(reader, events);
    sink.events(events);
    if (reader.state === 'reading') return false;
    if (reader.state === 'not_call') {
      // Nothing here was a call: its text, marker included, is content, and the search goes on after it.
      this.textSeen = true;
      sink.content(this.opener + reader.leftover());
      this.mode = 'content';
      return true;
    }
    sink.content(reader.leftover());
    this.mode = reader.state === 'broken' && this.format.ends.length > 0 ? 'skip' : 'after';
    return true;
  }

  /** With `wholeBodies`: the body's events wait for its end marker; a body that is no call or breaks is dropped. */
  private wholeBodyStep(reader: CallBodyReader, events: CallEvent[]): boolean {
    this.pending.push(...events);
    if (reader.state === 'reading') return false;
    if (reader.state === 'complete') this.mode = 'after';
    else this.discardBody();
    return true;
  }

  /** Drops the open body up to and including its end marker. */
  private discardBody(): void {
    this.pending = [];
    this.mode = 'discard';
  }

  private discardStep(): boolean {
    const hit = firstMarker(this.held, this.format.ends);
    if (hit === null) {
      this.held = this.held.slice(this.held.length - partialMarkerLength(this.held, this.format.ends));
      return false;
    }
    this.held = this.held.slice(hit.index + hit.marker.length);
    this.mode = 'between';
    return true;
  }

  /** After a body: whitespace, then a separator (another body), an end marker, or content again. */
  private afterStep(sink: ItemSink): boolean {
    const rest = this.held.trimStart();
    if (rest === '') return false;
    const { separator, ends } = this.format;
    if (separator !== undefined && rest.startsWith(separator)) {
      this.held = rest;
      return this.openBody(separator, true);
    }
    const end = ends.find((marker) => rest.startsWith(marker));
    if (end !== undefined) {
      this.held = rest.slice(end.length);
      this.mode = 'between';
      sink.events(this.pending);
      this.pending = [];
      return true;
    }
    if (partialMarkerLength(rest, ends) === rest.length) return false;
    if (this.format.wholeBodies === true) {
      // Text after the object inside the wrapper: the body is not a call.
      this.discardBody();
      return true;
    }
    return this.betweenStep();
  }

  /** A body begins after `opener` (at the start of the held text); `bare`: no start marker. */
  /** After an end marker: whitespace before another call is dropped, before text it is content. */
  private betweenStep(): boolean {
    const rest = this.held.trimStart();
    if (rest === '') return false;
    const { starts } = this.format;
    if (starts.some((marker) => rest.startsWith(marker))) this.held = rest;
    else if (partialMarkerLength(rest, starts) === rest.length) return false;
    this.mode = 'content';
    return true;
  }

  /** After a broken body: the rest of its section is content, its end marker is dropped. */
  private skipStep(sink: ItemSink): boolean {
    const hit = firstMarker(this.held, this.format.ends);
    if (hit === null) {
      this.release(sink, this.held.length - partialMarkerLength(this.held, this.format.ends));
      return false;
    }
    this.release(sink, hit.index);
    this.held = this.held.slice(hit.marker.length);
    this.mode = 'between';
    return true;
  }

  private openBody(opener: string, bare: boolean): boolean {
    this.opener = opener;
    this.held = this.held.slice(opener.length);
    this.reader = this.format.body(bare);
    this.mode = 'body';
    return true;
  }

  /** Releases the first `length` characters held as content. */
  private release(sink: ItemSink, length: number): boolean {
    const text = this.held.slice(0, length);
    if (text.trim() !== '') this.textSeen = true;
    sink.content(text);
    this.held = this.held.slice(length);
    return false;
  }
}
