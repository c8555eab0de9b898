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
   * False when the request turned thinking off (`chat_template_args.enable_thinking: false`): a
   * parser whose format starts inside the reasoning span must then treat all text as content.
   */
  thinkingEnabled: boolean;
}

export type ReasoningParserFactory = (options: ReasoningParserOptions) => ReasoningParser;
