// How a model marks its tool calls up, as data: the markers that open and close a run of calls,
// a call, its name and its arguments. One engine (markup-parser.ts) reads every such format.

/**
 * The arguments are written as one raw JSON object (kimi_k2, deepseek, harmony); what follows the
 * object up to the call's end marker (layout, a closing code fence) is dropped.
 */
export interface JsonArgumentsMarkup {
  kind: 'json';
}

/** The arguments are written one parameter at a time; the engine builds the JSON object. */
export interface ParameterArgumentsMarkup {
  kind: 'parameters';
  /** Opens a parameter; its key follows. */
  start: string;
  /** Ends the key. */
  keyEnd: string;
  /** Opens the value, when the format marks it apart from the key's end. */
  valueStart?: string;
  /** Ends the value. */
  valueEnd: string;
  /**
   * A value is typed by the tool's parameter schema; where the schema does not say, it is `text`,
   * or (`json`) the object, array or string it spells as JSON, and text otherwise.
   */
  untyped: 'text' | 'json';
  /** An `array` parameter not written as a JSON array is its comma-separated items, as text. */
  commaArrays?: boolean;
  /** Values escape `<`, `>`, `&` and quotes as XML entities. */
  xmlEntities?: boolean;
  /**
   * Reads the key from the text between `start` and `keyEnd` (quotes stripped by default); an `as`
   * the markup states (DSML's `string="true"`) decides the value's type instead of the schema.
   */
  readKey?: (raw: string) => ParameterKey;
  /** Whitespace around a value is layout (by default one newline each side is). */
  trimValues?: boolean;
}

/** A parameter's name, and the type its markup states for the value, if it does. */
export interface ParameterKey {
  key: string;
  /** `text`: the value as written; `json`: the JSON it spells, else the text. */
  as?: 'text' | 'json';
}

export interface ToolMarkupFormat {
  /** A run of calls between these markers; absent when each call stands alone in the content. */
  section?: { starts: readonly string[]; ends: readonly string[] };
  /** A call may also stand alone without the section around it (upstream's back-off). */
  bareCalls?: boolean;
  /** A call to a function the request's tools do not name is no call but content. */
  knownNamesOnly?: boolean;
  /** Markup that turns out not to be a call is dropped, not shown as content (DSML never shows its markup). */
  dropsMalformed?: boolean;
  /** Open a call; its name follows. */
  callStarts: readonly string[];
  /** End the name; not consumed (a name end may also open what follows). */
  nameEnds: readonly string[];
  /** The call's name from the text between its start and its name's end. */
  cleanName?: (raw: string) => string;
  /** Skipped up to and including, after the name, before the arguments. */
  argumentsStart?: string;
  arguments: JsonArgumentsMarkup | ParameterArgumentsMarkup;
  /** Ends a call. */
  callEnd: string;
}
