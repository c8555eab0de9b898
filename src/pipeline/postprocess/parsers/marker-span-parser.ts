// The engine shared by every reasoning format written as a span between a start and an end marker
// (`<think>…</think>`, `[THINK]…[/THINK]`, granite's sentences). Text inside a span is reasoning,
// the rest content; markers never reach either. Only the longest tail that could still begin a
// marker is held, so a marker split across pushes is found and everything else streams at once.

import { HeldTextParser } from './held-text-parser.js';
import { firstMarker, partialMarkerLength } from './marker-scan.js';
import type { ReasoningSplit } from './reasoning-parser.js';

export interface MarkerSpanFormat {
  /** Markers that open a span (alternatives). */
  starts: readonly string[];
  /** Markers that close it (alternatives). */
  ends: readonly string[];
  /**
   * The output begins inside the span: the chat template wrote the start marker into the prompt
   * (deepseek_r1) or the model omits it. A start marker the model writes anyway is dropped.
   */
  startsOpen: boolean;
  /** Spans may follow one another (interleaved thinking); otherwise only the first counts. */
  reopens: boolean;
  /** An end marker outside any span is markup and dropped, never shown as content. */
  dropsStrayEnd: boolean;
}

export class MarkerSpanParser extends HeldTextParser {
  private inSpan: boolean;
  /** Still at the very start of an open output, where a start marker may yet be dropped. */
  private atOpenStart: boolean;
  private spansClosed = 0;
  /** The markers content text is scanned for, before and after the first span closed (built once). */
  private readonly contentMarkers: { first: readonly string[]; later: readonly string[] };

  constructor(private readonly format: MarkerSpanFormat) {
    super();
    this.inSpan = format.startsOpen;
    this.atOpenStart = format.startsOpen;
    const stray = format.dropsStrayEnd ? format.ends : [];
    const later = format.reopens ? format.starts : [];
    this.contentMarkers = { first: [...format.starts, ...stray], later: [...later, ...stray] };
  }

  override finish(): ReasoningSplit {
    const rest = this.held;
    this.held = '';
    return this.inSpan ? { reasoning: rest, content: '' } : { reasoning: '', content: rest };
  }

  protected override step(out: ReasoningSplit): boolean {
    if (this.atOpenStart && !this.settleOpenStart()) return false;
    return this.inSpan ? this.stepInSpan(out) : this.stepInContent(out);
  }

  /** Drops a leading start marker of an open output; false while the text is still a prefix of one. */
  private settleOpenStart(): boolean {
    const start = this.format.starts.find((marker) => this.held.startsWith(marker));
    if (start !== undefined) {
      this.held = this.held.slice(start.length);
    } else if (this.format.starts.some((marker) => marker.startsWith(this.held))) {
      return false;
    }
    this.atOpenStart = false;
    return true;
  }

  private stepInSpan(out: ReasoningSplit): boolean {
    const hit = firstMarker(this.held, this.format.ends);
    if (hit !== null) {
      out.reasoning += this.held.slice(0, hit.index);
      this.held = this.held.slice(hit.index + hit.marker.length);
      this.inSpan = false;
      this.spansClosed += 1;
      return true;
    }
    out.reasoning += this.release(this.format.ends);
    return false;
  }

  private stepInContent(out: ReasoningSplit): boolean {
    const markers = this.spansClosed === 0 ? this.contentMarkers.first : this.contentMarkers.later;
    const hit = firstMarker(this.held, markers);
    if (hit !== null) {
      out.content += this.held.slice(0, hit.index);
      this.held = this.held.slice(hit.index + hit.marker.length);
      this.inSpan = (this.format.reopens || this.spansClosed === 0) && this.format.starts.includes(hit.marker);
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
