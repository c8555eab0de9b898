// What every tool-call parser does with a push: add the text to what it holds, then let the format
// settle as much of it as it can; and how content is released up to the marker that opens a call.

import type { MarkerHit } from '../marker-scan.js';
import { firstMarker, partialMarkerLength } from '../marker-scan.js';
import type { ToolCallParser, ToolCallParserOptions, ToolParseItem } from './parser.js';
import { ToolItems } from './items.js';

export abstract class HeldToolParser<State extends string> implements ToolCallParser {
  /** Text received but not yet settled. */
  protected held = '';
  protected readonly items: ToolItems;
  protected abstract state: State;
  /** What each state does with the held text: settles what it can, false when the rest must wait. */
  protected abstract readonly steps: Record<State, () => boolean>;

  constructor(options: ToolCallParserOptions) {
    this.items = new ToolItems(options);
  }

  push(text: string): ToolParseItem[] {
    this.held += text;
    while (this.held.length > 0 && this.steps[this.state]());
    return this.items.take();
  }

  abstract finish(): ToolParseItem[];

  /**
   * Releases the held text as content up to the first of `markers` and takes the marker off; null
   * when none has come (then only a tail that could still begin one stays held).
   */
  protected contentUntil(markers: readonly string[]): MarkerHit | null {
    const hit = firstMarker(this.held, markers);
    const end = hit?.index ?? this.held.length - partialMarkerLength(this.held, markers);
    this.items.content(this.held.slice(0, end));
    this.held = this.held.slice(end + (hit?.marker.length ?? 0));
    return hit;
  }
}
