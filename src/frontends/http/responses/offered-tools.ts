// Responses `tools` → the chat tools the model is offered, and how a call to each is reported back.
// Function tools are offered as they are; a namespace's tools under their own names (the call item
// then names its namespace); a custom tool (free-form input) as a function of one string `input`,
// its call reported as a `custom_tool_call`. Hosted tools (web search, file search, computer use,
// code interpreter, MCP, shells, ...) run on OpenAI's side: this gateway cannot run them, so they
// are accepted and never offered to the model (docs/api-fields.md).

import { ValidationError } from '../../../protocols/index.js';

type Body = Record<string, unknown>;

/** How a call to an offered tool is reported: as a function call or a custom tool call, with its namespace. */
export interface OfferedTool {
  kind: 'function' | 'custom';
  namespace?: string;
}

export type OfferedTools = ReadonlyMap<string, OfferedTool>;

export interface ChatTools {
  /** The chat request's `tools`; null when none is offered. */
  chat: Body[] | null;
  offered: OfferedTools;
}

/** Tool types OpenAI runs itself; accepted, never offered. */
export const HOSTED_TOOL_TYPES: readonly string[] = [
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'file_search',
  'computer',
  'computer_use_preview',
  'code_interpreter',
  'programmatic_tool_calling',
  'image_generation',
  'mcp',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
];
const HOSTED = new Set(HOSTED_TOOL_TYPES);
/** A hosted tool: nothing is offered. */
const notOffered: ToolConverter = () => undefined;

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A custom tool's one parameter: the free-form text the model writes. */
const CUSTOM_INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The free-form input of the tool' } },
  required: ['input'],
};

type ToolConverter = (tool: Body, path: string, out: Collected) => void;

interface Collected {
  chat: Body[];
  offered: Map<string, OfferedTool>;
}

function offer(out: Collected, path: string, fn: Body, how: OfferedTool): void {
  const name = fn.name as string;
  if (out.offered.has(name)) throw new ValidationError(`\`${path}.name\`: tool name ${JSON.stringify(name)} is offered twice`);
  out.offered.set(name, how);
  out.chat.push({ type: 'function', function: fn });
}

function functionTool(namespace?: string): ToolConverter {
  return (tool, path, out) => {
    if (typeof tool.name !== 'string') throw new ValidationError(`\`${path}.name\` is required and must be a string`);
    if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters)) {
      throw new ValidationError(`\`${path}.parameters\` must be a JSON schema object`);
    }
    const fn: Body = { name: tool.name };
    for (const field of ['description', 'parameters', 'strict']) if (tool[field] !== undefined && tool[field] !== null) fn[field] = tool[field];
    offer(out, path, fn, namespace === undefined ? { kind: 'function' } : { kind: 'function', namespace });
  };
}

function customTool(namespace?: string): ToolConverter {
  return (tool, path, out) => {
    if (typeof tool.name !== 'string') throw new ValidationError(`\`${path}.name\` is required and must be a string`);
    const fn: Body = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    fn.parameters = CUSTOM_INPUT_SCHEMA;
    offer(out, path, fn, namespace === undefined ? { kind: 'custom' } : { kind: 'custom', namespace });
  };
}

/** A namespace's own tools: functions and custom tools, no deeper namespaces. */
function innerConverters(namespace: string): Readonly<Record<string, ToolConverter>> {
  return { function: functionTool(namespace), custom: customTool(namespace) };
}

const CONVERTERS: Readonly<Record<string, ToolConverter>> = {
  ...Object.fromEntries(HOSTED_TOOL_TYPES.map((type) => [type, notOffered])),
  function: functionTool(),
  custom: customTool(),
  namespace: (tool, path, out) => {
    if (typeof tool.name !== 'string') throw new ValidationError(`\`${path}.name\` is required and must be a string`);
    if (!Array.isArray(tool.tools)) throw new ValidationError(`\`${path}.tools\` must be an array of function or custom tools`);
    const inner = innerConverters(tool.name);
    tool.tools.forEach((member, j) => convert(member, `${path}.tools[${j}]`, out, inner));
  },
};

function convert(tool: unknown, path: string, out: Collected, converters: Readonly<Record<string, ToolConverter>>): void {
  if (!isObject(tool)) throw new ValidationError(`\`${path}\` must be an object`);
  const converter = typeof tool.type === 'string' && Object.hasOwn(converters, tool.type) ? converters[tool.type] : undefined;
  if (!converter) {
    throw new ValidationError(`\`${path}.type\`: tool type ${JSON.stringify(tool.type)} is not supported here; one of ${Object.keys(converters).join(', ')}`);
  }
  converter(tool, path, out);
}

export function chatTools(tools: unknown): ChatTools {
  const out: Collected = { chat: [], offered: new Map() };
  if (tools === undefined || tools === null) return { chat: null, offered: out.offered };
  if (!Array.isArray(tools)) throw new ValidationError('`tools` must be an array');
  tools.forEach((tool, i) => convert(tool, `tools[${i}]`, out, CONVERTERS));
  return { chat: out.chat.length > 0 ? out.chat : null, offered: out.offered };
}

/**
 * `tool_choice` → chat's: a mode, a named function or custom tool, or `allowed_tools` (the offered
 * tools cut down to the allowed ones, under its mode). A hosted tool cannot be forced: it is not run here.
 */
export function chatToolChoice(choice: unknown, tools: Body[] | null): { choice: unknown; tools: Body[] | null } {
  if (typeof choice === 'string') return { choice, tools };
  if (isObject(choice) && (choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    return { choice: { type: 'function', function: { name: choice.name } }, tools };
  }
  if (isObject(choice) && choice.type === 'allowed_tools') {
    if (!Array.isArray(choice.tools)) throw new ValidationError('`tool_choice.tools` must be an array of tools');
    const allowed = new Set(choice.tools.filter(isObject).map((t) => t.name).filter((n): n is string => typeof n === 'string'));
    const kept = (tools ?? []).filter((t) => allowed.has((t.function as Body).name as string));
    const mode = choice.mode === 'required' ? 'required' : 'auto';
    return { choice: kept.length > 0 ? mode : 'none', tools: kept.length > 0 ? kept : null };
  }
  if (isObject(choice) && typeof choice.type === 'string' && HOSTED.has(choice.type)) {
    throw new ValidationError(`\`tool_choice\`: the hosted tool ${JSON.stringify(choice.type)} is not run by this gateway, so it cannot be required`);
  }
  throw new ValidationError('`tool_choice` must be "none", "auto", "required", {"type": "function", "name": ...}, {"type": "custom", "name": ...} or {"type": "allowed_tools", ...}');
}
