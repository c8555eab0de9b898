// A reasoning parser splits one choice's released text into reasoning and content as it streams
// (reference/http.md §8.2-§8.3). It is fed text, never token ids, and keeps whatever could still be
// the start of a marker until the next text settles it, so a marker split across tokens is found.

/** What one push releases: reasoning text and answer text, either may be empty. */
export interface ReasoningSplit {
  reasoning: string;
  content: string;
}

export interface ReasoningParser {
  /** Newly released text of the choice. */
  push(text: string): ReasoningSplit;
  /** The stream ended: everything still held. */
  finish(): ReasoningSplit;
}

export interface ReasoningParserOptions {
  /**
   * The reply begins inside the reasoning span: the format always does (deepseek_r1), or this
   * request's rendered prompt ended inside an open span (reasoning-selection.ts decides which).
   */
  startsInside: boolean;
}

export type ReasoningParserFactory = (options: ReasoningParserOptions) => ReasoningParser;
