// `tool_choice: "required"` or a named function is carried to the engine as a guided-decoding JSON
// schema (reference/http.md §8.3 point 3, upstream's tool_choice schema): a named function's output
// is its parameters object; `required` writes an array of at least one `{"name", "parameters"}`
// object, one alternative per tool, with every tool's `$defs` hoisted to the root (where `$ref`
// looks them up). The postprocessor parses that output (postprocess/parsers/tool/json/guided-calls.ts).

import type { ChatCompletionRequest, ChatTool } from '../../protocols/index.js';
import { fail } from './validation-failure.js';

type Schema = Record<string, unknown>;

/** The schema the engine must follow for this request's tool_choice; null when it sets none. */
export function toolChoiceSchema(req: Pick<ChatCompletionRequest, 'tools' | 'tool_choice'>): Schema | null {
  const choice = req.tool_choice;
  const tools = req.tools ?? [];
  if (typeof choice === 'object' && choice !== null) {
    const tool = tools.find((t) => t.function.name === choice.function.name);
    return tool ? parametersOf(tool) : null;
  }
  if (choice !== 'required' || tools.length === 0) return null;
  const defs: Schema = {};
  const alternatives = tools.map((tool) => {
    const { $defs, ...parameters } = parametersOf(tool);
    mergeDefs(defs, $defs, tool.function.name);
    return {
      properties: { name: { type: 'string', enum: [tool.function.name] }, parameters },
      required: ['name', 'parameters'],
    };
  });
  const schema: Schema = { type: 'array', minItems: 1, items: { type: 'object', anyOf: alternatives } };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

function parametersOf(tool: ChatTool): Schema {
  return tool.function.parameters ?? { type: 'object', properties: {} };
}

/** One tool's `$defs` into the shared map: the same name twice must mean the same schema. */
function mergeDefs(target: Schema, defs: unknown, tool: string): void {
  if (defs === undefined) return;
  if (typeof defs !== 'object' || defs === null || Array.isArray(defs)) fail(`$defs for tool \`${tool}\` must be an object`);
  for (const [name, schema] of Object.entries(defs)) {
    if (name in target && JSON.stringify(target[name]) !== JSON.stringify(schema)) {
      fail(`duplicate $defs entry \`${name}\` has conflicting schemas`);
    }
    target[name] = schema;
  }
}
