// What runs in place of a reasoning parser while the request turned a family's reasoning off: the
// text is all answer. Nemotron's models may still open their reply with `<think>`, which is dropped.

import { HeldTextParser } from './held-text-parser.js';
import { withoutLeadingMarker } from '../marker-scan.js';
import type { ReasoningParser, ReasoningSplit } from './parser.js';

class LeadingMarkerDropped extends HeldTextParser {
  private settled = false;

  constructor(private readonly markers: readonly string[]) {
    super();
  }

  override finish(): ReasoningSplit {
    const rest = this.held;
    this.held = '';
    return { reasoning: '', content: rest };
  }

  protected override step(out: ReasoningSplit): boolean {
    if (!this.settled) {
      const rest = withoutLeadingMarker(this.held, this.markers);
      if (rest === null) return false;
      this.held = rest;
      this.settled = true;
    }
    out.content += this.held;
    this.held = '';
    return false;
  }
}

/** Passes the reply through as answer text, dropping one of `markers` where it opens the reply. */
export function leadingMarkerDropped(markers: readonly string[]): () => ReasoningParser {
  return () => new LeadingMarkerDropped(markers);
}
