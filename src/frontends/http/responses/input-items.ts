// Responses `input` items → chat messages (reference/http.md §9.1): message items keep their role
// with their text parts as chat text parts; consecutive function_call and custom_tool_call items
// become one assistant message's tool_calls (a custom tool's input as the one `input` argument it
// was offered with: offered-tools.ts); their outputs become tool messages. Items of hosted tools
// (web search, file search, shells, ...) are the record of tools this gateway never offers: dropped.

import { NotImplementedError, ValidationError, type ChatMessage, type ContentPart } from '../../../protocols/index.js';
import { compactionText, decodeCompaction } from './compaction-item.js';
import { newItemId } from './response-object.js';
import { noteOrigin } from '../model-route/index.js';

type Item = Record<string, unknown>;

const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer'];

/** The items of hosted tools' calls and results (OpenAI's Responses reference). */
const HOSTED_TOOL_ITEMS = [
  'web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'image_generation_call', 'code_interpreter_call',
  'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output',
  'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response', 'mcp_call', 'tool_search_call', 'tool_search_output',
];

function isObject(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireString(item: Item, field: string, path: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw new ValidationError(`\`${path}.${field}\` is required and must be a string`);
  return value;
}

/**
 * The chat messages of `input` (a string is one user message), after those of `earlier`: the items
 * of the responses it continues (`previous_response_id`).
 */
export function inputMessages(input: unknown, earlier: readonly Item[] = []): ChatMessage[] {
  const messages: ChatMessage[] = [];
  earlier.forEach((item, i) => convertItem(item, `previous_response_id's item ${i}`, messages));
  if (typeof input === 'string') {
    messages.push(noteOrigin({ role: 'user', content: input }, 'input'));
    return messages;
  }
  inputList(input).forEach((item, i) => convertItem(item, `input[${i}]`, messages));
  return messages;
}

function inputList(input: unknown): unknown[] {
  if (!Array.isArray(input)) throw new ValidationError('`input` must be a string or an array of input items');
  if (input.length === 0) {
    throw new ValidationError('`input` cannot be empty: at least one input item (a message) is required to build the messages');
  }
  return input;
}

function convertItem(item: unknown, path: string, messages: ChatMessage[]): void {
  if (!isObject(item)) throw new ValidationError(`\`${path}\` must be an object`);
  // An item without a type is the "easy" message form: {role, content}.
  const type = item.type ?? 'message';
  const convert = typeof type === 'string' ? ITEM_CONVERTERS[type] : undefined;
  if (!convert) throw new ValidationError(`\`${path}.type\`: unsupported input item type ${JSON.stringify(type)}`);
  const before = messages.length;
  convert(item, path, messages);
  for (const message of messages.slice(before)) noteOrigin(message, path);
}

/** Id prefixes of the input items a request gives without ids; `item` for the others. */
const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg', function_call: 'fc', function_call_output: 'fco', custom_tool_call: 'ctc', custom_tool_call_output: 'ctco', reasoning: 'rs',
};

/**
 * The input items a stored response lists (`GET /v1/responses/{id}/input_items`): as given, each
 * with a type and an id (a string input is one user message). Call after `inputMessages` checked them.
 */
export function storedInputItems(input: unknown): Item[] {
  const items: Item[] = typeof input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }] : (input as Item[]);
  return items.map((item) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    return { ...item, id: typeof item.id === 'string' ? item.id : newItemId(ID_PREFIXES[type] ?? 'item'), type };
  });
}

type ItemConverter = (item: Item, path: string, messages: ChatMessage[]) => void;

const ITEM_CONVERTERS: Record<string, ItemConverter> = {
  message: (item, path, messages) => {
    const role = item.role;
    if (typeof role !== 'string' || !MESSAGE_ROLES.includes(role)) {
      throw new ValidationError(`\`${path}.role\` must be one of ${MESSAGE_ROLES.join(', ')}`);
    }
    // Chat templates know `system`, not OpenAI's newer `developer`, which they would drop unrendered.
    const chatRole = role === 'developer' ? 'system' : (role as ChatMessage['role']);
    messages.push({ role: chatRole, content: messageContent(item.content, `${path}.content`) });
  },
  function_call: (item, path, messages) => {
    addCall(messages, requireString(item, 'call_id', path), requireString(item, 'name', path), requireString(item, 'arguments', path));
  },
  custom_tool_call: (item, path, messages) => {
    const input = requireString(item, 'input', path);
    addCall(messages, requireString(item, 'call_id', path), requireString(item, 'name', path), JSON.stringify({ input }));
  },
  function_call_output: toolOutput,
  custom_tool_call_output: toolOutput,
  // A compaction of this gateway's stands for the conversation before it: its summary, as context.
  compaction: (item, path, messages) => {
    messages.push({ role: 'system', content: compactionText(decodeCompaction(item.encrypted_content, path)) });
  },
  // Earlier reasoning is not rendered back: templates drop it from past turns anyway.
  reasoning: () => undefined,
  item_reference: (_item, path) => {
    throw new NotImplementedError(`\`${path}\`: item_reference is not supported yet: continue a stored response with previous_response_id`);
  },
  ...Object.fromEntries(HOSTED_TOOL_ITEMS.map((type) => [type, () => undefined])),
};

/** A call joins the assistant turn before it: parallel calls and the text said before them are one turn. */
function addCall(messages: ChatMessage[], id: string, name: string, args: string): void {
  const call = { id, type: 'function' as const, function: { name, arguments: args } };
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function toolOutput(item: Item, path: string, messages: ChatMessage[]): void {
  const output = item.output;
  const content = typeof output === 'string' ? output : messageContent(output, `${path}.output`);
  messages.push({ role: 'tool', tool_call_id: requireString(item, 'call_id', path), content });
}

function messageContent(content: unknown, path: string): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new ValidationError(`\`${path}\` must be a string or an array of content parts`);
  return content.map((part, j) => contentPart(part, `${path}[${j}]`));
}

function contentPart(part: unknown, path: string): ContentPart {
  if (!isObject(part)) throw new ValidationError(`\`${path}\` must be an object`);
  const convert = typeof part.type === 'string' ? PART_CONVERTERS[part.type] : undefined;
  if (!convert) throw new ValidationError(`\`${path}.type\`: unsupported content part type ${JSON.stringify(part.type)}`);
  return convert(part, path);
}

const textPart = (part: Item, path: string): ContentPart => ({ type: 'text', text: requireString(part, 'text', path) });

const PART_CONVERTERS: Record<string, (part: Item, path: string) => ContentPart> = {
  input_text: textPart,
  output_text: textPart,
  refusal: (part, path) => ({ type: 'text', text: requireString(part, 'refusal', path) }),
  input_image: (part, path) => {
    if (typeof part.image_url === 'string') {
      return { type: 'image_url', image_url: { url: part.image_url, detail: typeof part.detail === 'string' ? part.detail : null } };
    }
    if (part.file_id !== undefined) throw new NotImplementedError(`\`${path}\`: image input by file_id is not supported`);
    throw new ValidationError(`\`${path}\`: input_image requires file_id or image_url`);
  },
  input_file: (_part, path) => {
    throw new NotImplementedError(`\`${path}\`: file input content is not supported`);
  },
};
