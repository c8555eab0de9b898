// System messages beyond one leading one: several at the start (Codex sends two developer messages,
// which reach the template as system messages), or after the conversation began (the Anthropic
// Messages API takes one there as an instruction at that point; Claude Code sends one). Some chat
// templates refuse any system message but the first (Qwen3.5's and Qwen3-Coder's raise "System
// message must be at the beginning"). For such a template they are folded into one leading system
// message, in order; a template that renders them keeps them where they stand. Which kind a template
// is, is learnt once by rendering a probe conversation, not by reading the template's text.
import type { ChatCompletionRequest, ChatMessage } from '../../protocols/index.js';

/** Every system message but a first one at index 0. */
function extraSystemIndices(messages: readonly ChatMessage[]): number[] {
  return messages.flatMap((m, i) => (i > 0 && m.role === 'system' ? [i] : []));
}

export function hasLateSystemMessages(request: Pick<ChatCompletionRequest, 'messages'>): boolean {
  return extraSystemIndices(request.messages).length > 0;
}

function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The messages with every system message merged, in order, into one leading system message. */
export function foldLateSystemMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  if (extraSystemIndices(messages).length === 0) return [...messages];
  const system = messages.filter((m) => m.role === 'system').map(textOf).join('\n\n');
  return [{ role: 'system', content: system }, ...messages.filter((m) => m.role !== 'system')];
}

/** Two leading system messages and one after a user turn: what a template that takes only one first rejects. */
export const LATE_SYSTEM_PROBE: ChatMessage[] = [
  { role: 'system', content: 's1' },
  { role: 'system', content: 's2' },
  { role: 'user', content: 'a' },
  { role: 'system', content: 's3' },
  { role: 'user', content: 'b' },
];
