// What a structural-tag builder is given of a request: the tools the tool choice allows, whether
// a call is required, whether one call ends it, whose schemas are enforced, and which markers the
// free text around the calls must not contain.

import type { ChatTool, StructuralTagSchema } from '../../protocols/index.js';

export interface TagRequest {
  /** The tools a call may use: all of them, or the named one. */
  tools: readonly ChatTool[];
  /** `required` or a named function: at least one call. */
  atLeastOne: boolean;
  /** `tool_choice` names one function. */
  named: boolean;
  /** `parallel_tool_calls: false`: the grammar ends after the first call. */
  stopAfterFirst: boolean;
  schema: StructuralTagSchema;
  /**
   * Kept out of the free text around the calls (`exclude_special_tokens`); absent: the builder's
   * own free text. Each builder puts them where its format has free text.
   */
  textExcludes?: readonly string[];
}

/**
 * A tool's arguments constraint: its parameters schema (or any JSON where it has none), unless
 * it says `strict: false` under schema `auto`, where any JSON (`true`) goes.
 */
export function argumentsSchema(tool: ChatTool, schema: StructuralTagSchema): unknown {
  const enforced = schema === 'strict' || tool.function.strict !== false;
  return enforced ? (tool.function.parameters ?? true) : true;
}
