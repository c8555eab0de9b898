// The engine shared by every reasoning format written as a span between a start and an end marker
// (`<think>…</think>`, `[THINK]…[/THINK]`, granite's sentences). Text inside a span is reasoning,
// the rest content; markers never reach either. Only the longest tail that could still begin a
// marker is held, so a marker split across pushes is found and everything else streams at once.

import { HeldTextParser } from './held-text-parser.js';
import { firstMarker, partialMarkerLength, withoutLeadingMarker } from '../marker-scan.js';
import type { ReasoningParserFactory, ReasoningSplit } from './parser.js';

export interface MarkerSpanFormat {
  /** Markers that open a span (alternatives). */
  starts: readonly string[];
  /** Markers that close it (alternatives). */
  ends: readonly string[];
  /** Spans may follow one another (interleaved thinking); otherwise only the first counts. */
  reopens: boolean;
  /** An end marker outside any span is markup and dropped, never shown as content. */
  dropsStrayEnd: boolean;
  /**
   * Markers that begin a tool call, which some models write straight from their reasoning without
   * closing it: such a marker ends the span and stays in the content, for the tool-call parser.
   */
  toolStarts?: readonly string[];
  /**
   * The template may have opened the span without the prompt showing it (MiniMax-M3): a reply not
   * started inside holds its text until the first marker decides what it was. A start marker: the
   * text before it is answer; an end marker or a tool-call start: it was reasoning (upstream's
   * dangling-end recovery); the end of the stream: answer.
   */
  impliedStart?: boolean;
  /** A label opening every span (Gemma 4's `thought\n`): dropped, not reasoning. */
  spanLabel?: string;
}

export class MarkerSpanParser extends HeldTextParser {
  private inSpan: boolean;
  /** Still at the very start of an open output, where a start marker may yet be dropped. */
  private atOpenStart: boolean;
  private spansClosed = 0;
  /** With `impliedStart`, before the first marker: the held text is reasoning or answer, not known yet. */
  private undecided: boolean;
  /** A span just opened and its label (`spanLabel`) may still be coming. */
  private labelPending = false;
  /** The markers content text is scanned for, before and after the first span closed (built once). */
  private readonly contentMarkers: { first: readonly string[]; later: readonly string[] };
  /** What ends a span: its end markers and any tool-call start. */
  private readonly spanEnds: readonly string[];

  /**
   * `startsInside`: the output begins inside the span (the format forces it or the prompt opened
   * it); a start marker the model writes anyway at the very beginning is dropped.
   */
  constructor(
    private readonly format: MarkerSpanFormat,
    startsInside: boolean,
  ) {
    super();
    this.inSpan = startsInside;
    this.atOpenStart = startsInside;
    this.undecided = !startsInside && format.impliedStart === true;
    this.labelPending = startsInside && format.spanLabel !== undefined;
    this.spanEnds = [...format.ends, ...(format.toolStarts ?? [])];
    const stray = format.dropsStrayEnd ? format.ends : [];
    const later = format.reopens ? format.starts : [];
    this.contentMarkers = { first: [...format.starts, ...stray], later: [...later, ...stray] };
  }

  override finish(): ReasoningSplit {
    const rest = this.held;
    this.held = '';
    // A label still pending is all that came of the span: dropped, as upstream drops it.
    if (this.inSpan && this.labelPending && this.format.spanLabel!.startsWith(rest)) return { reasoning: '', content: '' };
    return this.inSpan ? { reasoning: rest, content: '' } : { reasoning: '', content: rest };
  }

  protected override step(out: ReasoningSplit): boolean {
    if (this.undecided) return this.decide(out);
    if (this.atOpenStart && !this.settleOpenStart()) return false;
    if (this.inSpan && this.labelPending && !this.settleLabel()) return false;
    return this.inSpan ? this.stepInSpan(out) : this.stepInContent(out);
  }

  /** `impliedStart`: the first marker says what the text before it was; none yet: hold it. */
  private decide(out: ReasoningSplit): boolean {
    const hit = firstMarker(this.held, [...this.format.starts, ...this.spanEnds]);
    if (hit === null) return false;
    this.undecided = false;
    if (this.format.starts.includes(hit.marker)) return true;
    // An end marker or a tool-call start: the template had opened the span.
    this.inSpan = true;
    return this.stepInSpan(out);
  }

  /** Drops the span's label; false while the text could still be (the start of) it. */
  private settleLabel(): boolean {
    const label = this.format.spanLabel!;
    const end = firstMarker(this.held, this.spanEnds);
    // Up to the span's end, or but for a tail that may yet be one.
    const opening = this.held.slice(0, end?.index ?? this.held.length - partialMarkerLength(this.held, this.spanEnds));
    if (opening.startsWith(label)) this.held = this.held.slice(label.length);
    else if (label.startsWith(opening)) {
      if (end === null) return false;
      // The span ended inside its label: nothing of it was reasoning.
      this.held = this.held.slice(end.index);
    }
    this.labelPending = false;
    return true;
  }

  /** Drops a leading start marker of an open output; false while the text is still a prefix of one. */
  private settleOpenStart(): boolean {
    const rest = withoutLeadingMarker(this.held, this.format.starts);
    if (rest === null) return false;
    this.held = rest;
    this.atOpenStart = false;
    return true;
  }

  private stepInSpan(out: ReasoningSplit): boolean {
    const hit = firstMarker(this.held, this.spanEnds);
    if (hit !== null) {
      out.reasoning += this.held.slice(0, hit.index);
      // A tool-call start is the call's own markup: it stays for the content side.
      const toolStart = !this.format.ends.includes(hit.marker);
      this.held = this.held.slice(hit.index + (toolStart ? 0 : hit.marker.length));
      this.inSpan = false;
      this.spansClosed += 1;
      return true;
    }
    out.reasoning += this.release(this.spanEnds);
    return false;
  }

  private stepInContent(out: ReasoningSplit): boolean {
    const markers = this.spansClosed === 0 ? this.contentMarkers.first : this.contentMarkers.later;
    const hit = firstMarker(this.held, markers);
    if (hit !== null) {
      out.content += this.held.slice(0, hit.index);
      this.held = this.held.slice(hit.index + hit.marker.length);
      this.inSpan = (this.format.reopens || this.spansClosed === 0) && this.format.starts.includes(hit.marker);
      this.labelPending = this.inSpan && this.format.spanLabel !== undefined;
      return true;
    }
    out.content += this.release(markers);
    return false;
  }

  /** Releases the held text but for a tail that could still begin one of `markers`. */
  private release(markers: readonly string[]): string {
    const keep = partialMarkerLength(this.held, markers);
    const released = this.held.slice(0, this.held.length - keep);
    this.held = this.held.slice(this.held.length - keep);
    return released;
  }
}

/** The factory of a span format's parsers, started inside or outside as each request decides. */
export function spanParsers(format: MarkerSpanFormat): ReasoningParserFactory {
  return ({ startsInside }) => new MarkerSpanParser(format, startsInside);
}
