// Anthropic `messages` → chat messages (reference/http.md §9.2): text and image blocks become chat
// content parts, an assistant's tool_use blocks its tool_calls, a user's tool_result blocks tool
// messages (ahead of the rest of that turn, as they answer the calls just before). An assistant's
// thinking blocks are its `reasoning_content`: the chat template keeps or drops it, as the model
// does (Qwen3 renders it within the current tool loop only); redacted thinking is opaque and dropped.
// Documents (plain text or content) and search results are text for the model: their title, context
// or source, then their text. A chat tool message is text, so the images of a tool result follow the
// tool messages in the user turn that carries them, in order.

import { ValidationError, type ChatMessage, type ContentPart, type ToolCall } from '../../../protocols/index.js';
import { noteOrigin } from '../model-route/index.js';

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
  return messages.flatMap((message, i) => turnMessages(message, `messages[${i}]`).map((m) => noteOrigin(m, `messages[${i}]`)));
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
  if (!convert) throw unsupported(block, path, Object.keys(BLOCK_CONVERTERS));
  convert(block, path, turn);
}

function unsupported(block: Block, path: string, known: readonly string[]): ValidationError {
  return new ValidationError(`${path}.type: content block type ${JSON.stringify(block.type)} is not supported here (supported: ${known.join(', ')})`);
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

/** The blocks that are content a model reads, anywhere content goes: in a turn or in a tool result. */
const CONTENT_CONVERTERS: Record<string, (block: Block, path: string) => ContentPart[]> = {
  text: (block, path) => [{ type: 'text', text: requireString(block, 'text', path) }],
  image: (block, path) => [{ type: 'image_url', image_url: { url: imageUrl(block.source, `${path}.source`) } }],
  document: (block, path) => documentParts(block, path),
  search_result: (block, path) => [{ type: 'text', text: searchResultText(block, path) }],
};

const BLOCK_CONVERTERS: Record<string, BlockConverter> = {
  ...Object.fromEntries(
    Object.entries(CONTENT_CONVERTERS).map(([type, parts]) => [
      type,
      (block: Block, path: string, turn: Turn) => void turn.parts.push(...parts(block, path).map((p) => noteOrigin(p, path))),
    ]),
  ),
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
    const parts = toolResultParts(block.content, `${path}.content`);
    const text = joinedText(parts.filter((p) => p.type === 'text'));
    turn.toolResults.push({ role: 'tool', tool_call_id: requireString(block, 'tool_use_id', path), content: text });
    turn.parts.push(...parts.filter((p) => p.type !== 'text'));
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

/** A tool result's content as parts: a string, or its blocks (text, images, documents, search results). */
function toolResultParts(content: unknown, path: string): ContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return contentBlocks(content, path).flatMap((block, j) => {
    const convert = typeof block.type === 'string' ? CONTENT_CONVERTERS[block.type] : undefined;
    if (!convert) throw unsupported(block, `${path}[${j}]`, Object.keys(CONTENT_CONVERTERS));
    return convert(block, `${path}[${j}]`).map((p) => noteOrigin(p, `${path}[${j}]`));
  });
}

/** A heading line per present field, then the body: how a document or search result reads as text. */
function headed(fields: readonly (readonly [string, unknown])[], body: string): string {
  const lines = fields.filter(([, v]) => typeof v === 'string' && v !== '').map(([k, v]) => `${k}: ${v as string}`);
  return lines.length === 0 ? body : `${lines.join('\n')}\n\n${body}`;
}

/**
 * A document's parts. Plain text and content sources are read; a PDF (base64 or url) or a Files API
 * id is refused: the gateway has no PDF reader and no file store.
 */
function documentParts(block: Block, path: string): ContentPart[] {
  const source = block.source;
  const at = `${path}.source`;
  if (!isObject(source)) throw new ValidationError(`${at}: field required (an object)`);
  const heading = [['title', block.title], ['context', block.context]] as const;
  if (source.type === 'text') return [{ type: 'text', text: headed(heading, requireString(source, 'data', at)) }];
  if (source.type === 'content') {
    const parts = typeof source.content === 'string' ? [{ type: 'text' as const, text: source.content }] : toolResultParts(source.content, `${at}.content`);
    const first = parts.findIndex((p) => p.type === 'text');
    if (first >= 0) parts[first] = { type: 'text', text: headed(heading, (parts[first] as { text: string }).text) };
    return parts;
  }
  if (source.type === 'base64' || source.type === 'url') {
    throw new ValidationError(`${at}.type: PDF documents are not supported (this gateway has no PDF reader); send the document's text as a "text" or "content" source`);
  }
  if (source.type === 'file') throw new ValidationError(`${at}.type: "file" sources need the Files API, which this gateway does not serve; send the document's text`);
  throw new ValidationError(`${at}.type: must be "text", "content", "base64" or "url", got ${JSON.stringify(source.type)}`);
}

/** A search result as text: its title and source, then its text blocks. */
function searchResultText(block: Block, path: string): string {
  const body = contentBlocks(block.content, `${path}.content`)
    .map((b, j) => {
      if (b.type !== 'text') throw new ValidationError(`${path}.content[${j}].type: a search result holds text blocks only`);
      return requireString(b, 'text', `${path}.content[${j}]`);
    })
    .join('\n\n');
  return headed([['title', requireString(block, 'title', path)], ['source', requireString(block, 'source', path)]], body);
}
