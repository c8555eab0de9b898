// Anthropic `messages` → chat messages (reference/http.md §9.2): text and image blocks become chat
// content parts, an assistant's tool_use blocks its tool_calls, a user's tool_result blocks tool
// messages (ahead of the rest of that turn, as they answer the calls just before). An assistant's
// thinking blocks are its `reasoning_content`: the chat template keeps or drops it, as the model
// does (Qwen3 renders it within the current tool loop only); redacted thinking is opaque and dropped.

import { NotImplementedError, ValidationError, type ChatMessage, type ContentPart, type ToolCall } from '../../../protocols/index.js';

type Block = Record<string, unknown>;

/** A `system` message mid-conversation is an instruction at that point (the current API accepts it). */
const ROLES = ['user', 'assistant', 'system'];

export function isObject(value: unknown): value is Block {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireString(block: Block, field: string, path: string): string {
  const value = block[field];
  if (typeof value !== 'string') throw new ValidationError(`${path}.${field}: field required (a string)`);
  return value;
}

/** One turn being built: its content parts, reasoning and tool calls, and the tool messages ahead of it. */
interface Turn {
  parts: ContentPart[];
  reasoning: string[];
  toolCalls: ToolCall[];
  toolResults: ChatMessage[];
}

type BlockConverter = (block: Block, path: string, turn: Turn) => void;

export function chatMessages(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages)) throw new ValidationError('messages: field required (an array of messages)');
  if (messages.length === 0) throw new ValidationError('messages: at least one message is required');
  return messages.flatMap((message, i) => turnMessages(message, `messages[${i}]`));
}

function turnMessages(message: unknown, path: string): ChatMessage[] {
  if (!isObject(message)) throw new ValidationError(`${path}: messages must be objects`);
  const role = message.role;
  if (typeof role !== 'string' || !ROLES.includes(role)) throw new ValidationError(`${path}.role: must be one of ${ROLES.join(', ')}`);
  const content = message.content;
  // A string is the message's text as chat would send it.
  if (typeof content === 'string') return [{ role: role as ChatMessage['role'], content }];
  if (role === 'system') return [{ role: 'system', content: systemText(content, `${path}.content`) }];
  const turn: Turn = { parts: [], reasoning: [], toolCalls: [], toolResults: [] };
  contentBlocks(content, `${path}.content`).forEach((block, j) => convertBlock(block, `${path}.content[${j}]`, turn));
  const out: ChatMessage[] = [...turn.toolResults];
  if (role === 'assistant') {
    if (turn.parts.length > 0 || turn.toolCalls.length > 0 || turn.reasoning.length > 0) {
      const assistant: ChatMessage = { role: 'assistant', content: turn.parts.length > 0 ? joinedText(turn.parts) : null };
      if (turn.reasoning.length > 0) assistant.reasoning_content = turn.reasoning.join('');
      if (turn.toolCalls.length > 0) assistant.tool_calls = turn.toolCalls;
      out.push(assistant);
    }
  } else if (turn.parts.length > 0) {
    out.push({ role: 'user', content: turn.parts });
  }
  return out;
}

/** The blocks of a content array; §5.6's messages for the two malformed shapes. */
export function contentBlocks(content: unknown, path: string): Block[] {
  if (!Array.isArray(content)) throw new ValidationError(`${path}: must be a string or an array of content blocks`);
  if (content.length === 0) throw new ValidationError(`${path}: must contain at least one content block`);
  if (!content.every(isObject)) throw new ValidationError(`${path}: content blocks must be objects`);
  return content;
}

function convertBlock(block: Block, path: string, turn: Turn): void {
  const convert = typeof block.type === 'string' ? BLOCK_CONVERTERS[block.type] : undefined;
  if (!convert) throw new NotImplementedError(`${path}: content block type ${JSON.stringify(block.type)} is not supported`);
  convert(block, path, turn);
}

/** A system message's text blocks as one string: templates render a system message as text. */
function systemText(content: unknown, path: string): string {
  return contentBlocks(content, path)
    .map((block, j) => {
      if (block.type !== 'text') throw new ValidationError(`${path}[${j}].type: a system message holds text blocks only`);
      return requireString(block, 'text', `${path}[${j}]`);
    })
    .join('\n\n');
}

/** Assistant text as one string: chat templates render an assistant's content as text. */
function joinedText(parts: ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

const BLOCK_CONVERTERS: Record<string, BlockConverter> = {
  text: (block, path, turn) => {
    turn.parts.push({ type: 'text', text: requireString(block, 'text', path) });
  },
  image: (block, path, turn) => {
    turn.parts.push({ type: 'image_url', image_url: { url: imageUrl(block.source, `${path}.source`) } });
  },
  tool_use: (block, path, turn) => {
    const input = block.input ?? {};
    if (!isObject(input)) throw new ValidationError(`${path}.input: must be an object`);
    turn.toolCalls.push({
      id: requireString(block, 'id', path),
      type: 'function',
      function: { name: requireString(block, 'name', path), arguments: JSON.stringify(input) },
    });
  },
  tool_result: (block, path, turn) => {
    turn.toolResults.push({ role: 'tool', tool_call_id: requireString(block, 'tool_use_id', path), content: toolResultText(block.content, `${path}.content`) });
  },
  thinking: (block, path, turn) => {
    turn.reasoning.push(requireString(block, 'thinking', path));
  },
  redacted_thinking: () => undefined,
};

function imageUrl(source: unknown, path: string): string {
  if (!isObject(source)) throw new ValidationError(`${path}: field required (an object)`);
  if (source.type === 'base64') return `data:${requireString(source, 'media_type', path)};base64,${requireString(source, 'data', path)}`;
  if (source.type === 'url') return requireString(source, 'url', path);
  throw new ValidationError(`${path}.type: must be "base64" or "url", got ${JSON.stringify(source.type)}`);
}

/** A tool result's content as the tool message's text: a string, or its text blocks joined. */
function toolResultText(content: unknown, path: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return contentBlocks(content, path)
    .map((block, j) => {
      if (block.type !== 'text') throw new NotImplementedError(`${path}[${j}]: content block type ${JSON.stringify(block.type)} is not supported in a tool_result`);
      return requireString(block, 'text', `${path}[${j}]`);
    })
    .join('');
}
