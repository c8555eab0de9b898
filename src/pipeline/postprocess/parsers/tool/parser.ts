// A tool-call parser finds tool calls in one choice's released text as it streams (reference/http.md
// §8.1, §8.3), after the reasoning parser. Unlike upstream, which holds a call back until it is
// complete, a call streams as OpenAI streams it: its start (id, name) as soon as the name is known,
// then its arguments as fragments whose concatenation is exactly the final arguments JSON.

/** One piece of the parsed stream, in the order the model wrote it. */
export type ToolParseItem =
  /** Plain content (text before, between or after calls, or text that turned out not to be a call). */
  | { type: 'content'; text: string }
  /** A call begins: `index` counts the choice's calls from 0; `id` is `call-<uuid>` as upstream. */
  | { type: 'call_start'; index: number; id: string; name: string }
  /** More of the call's arguments JSON. */
  | { type: 'call_arguments'; index: number; fragment: string }
  /** The call is complete: every fragment has been given. */
  | { type: 'call_end'; index: number };

export interface ToolCallParser {
  /** Newly released text of the choice (after reasoning was split off). */
  push(text: string): ToolParseItem[];
  /** The stream ended: whatever is held (an unterminated call is closed if it parsed, else released as content). */
  finish(): ToolParseItem[];
}

/** A call a format read whole (its markup closed): released at once. */
export interface WholeCall {
  name: string;
  /** The arguments object as JSON text. */
  arguments: string;
  /** The id the format gives the call; a new one otherwise. */
  id?: string;
}

/** A function tool of the request, as the parser may need it (e.g. to type parameters given as text). */
export interface ToolSpec {
  name: string;
  /** The JSON schema of its parameters, when the request gave one. */
  parameters?: Record<string, unknown>;
}

export interface ToolCallParserOptions {
  tools: readonly ToolSpec[];
  /** Makes call ids; tests pass a counter so outputs are stable. */
  newCallId?: () => string;
}

export type ToolCallParserFactory = (options: ToolCallParserOptions) => ToolCallParser;
