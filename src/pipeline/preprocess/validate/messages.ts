// Chat `messages`: their shape as serde reads it (roles, content parts, tool calls), their rules
// (not empty, tool call ids, tool-call arguments that fit the tool's parameters), and the media
// kinds a deployment refuses in them (`DYN_REJECT_MEDIA_INPUTS`).

import { checkKind, deserializeError, invalidType, isObject } from '../json-types.js';
import { MEDIA_KIND_OF_PART } from '../media-parts.js';
import { fail } from '../validation-failure.js';
import { schemaViolation } from './schema-check.js';
import type { Body } from './root.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

export function checkMessageShapes(messages: unknown): void {
  if (!Array.isArray(messages)) throw invalidType('messages', messages, 'a sequence');
  // Paths are spelled only for an error: a valid message costs no strings.
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isObject(message)) throw invalidType(`messages[${i}]`, message, 'a message object');
    if (typeof message.role === 'string' && ROLES.includes(message.role) && typeof message.content === 'string' && message.tool_calls === undefined && message.role !== 'tool') continue;
    const path = `messages[${i}]`;
    if (typeof message.role !== 'string' || !ROLES.includes(message.role)) {
      const detail = typeof message.role === 'string'
        ? `unknown variant \`${message.role}\`, expected one of ${ROLES.map((r) => `\`${r}\``).join(', ')}`
        : 'missing field `role`';
      throw deserializeError(`${path}.role`, detail);
    }
    checkContentShape(message.content, `${path}.content`);
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
      if (message.tool_call_id === undefined) throw deserializeError(path, 'missing field `tool_call_id`');
      throw invalidType(`${path}.tool_call_id`, message.tool_call_id, 'a string');
    }
    const calls = message.tool_calls;
    if (calls === undefined || calls === null) continue;
    if (!Array.isArray(calls)) throw invalidType(`${path}.tool_calls`, calls, 'a sequence');
    calls.forEach((call, j) => {
      const callPath = `${path}.tool_calls[${j}]`;
      if (!isObject(call) || !isObject(call.function)) throw deserializeError(callPath, 'missing field `function`');
      checkKind(call.function.name, 'string', `${callPath}.function.name`);
      checkKind(call.function.arguments, 'string', `${callPath}.function.arguments`);
      if (typeof call.function.name !== 'string') throw deserializeError(`${callPath}.function`, 'missing field `name`');
      if (typeof call.function.arguments !== 'string') throw deserializeError(`${callPath}.function`, 'missing field `arguments`');
    });
  }
}

function checkContentShape(content: unknown, path: string): void {
  if (content === null || content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content)) throw invalidType(path, content, 'a string or an array of content parts');
  content.forEach((part, k) => {
    const partPath = `${path}[${k}]`;
    if (!isObject(part) || typeof part.type !== 'string') throw deserializeError(partPath, 'missing field `type`');
    if (part.type === 'text' && typeof part.text !== 'string') throw invalidType(`${partPath}.text`, part.text, 'a string');
  });
}

/** Media parts of a kind the deployment refuses, and audio output when audio is refused. */
export function checkRejectedMedia(body: Body, messages: Body[], rejected: readonly string[]): void {
  messages.forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    for (const part of message.content as Body[]) {
      const kind = MEDIA_KIND_OF_PART[part.type as string];
      if (kind && rejected.includes(kind)) {
        fail(`${kind} input is not supported for this model: remove the \`${part.type as string}\` content part from messages[${i}]`);
      }
    }
  });
  if (rejected.includes('audio') && Array.isArray(body.modalities) && body.modalities.includes('audio')) {
    fail('audio output is not supported for this model');
  }
}

/**
 * Tool messages need a call id; earlier assistant tool-call arguments must be JSON objects that
 * fit the parameters of the tool they call, when that tool is in `tools`.
 */
export function checkMessageRules(messages: Body[], tools: Body[] | null | undefined): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool' && (message.tool_call_id as string).trim() === '') {
      fail(`\`messages[${i}].tool_call_id\` cannot be empty`);
    }
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    (message.tool_calls as { function: { name: string; arguments: string } }[]).forEach((call, j) => {
      const args = call.function.arguments;
      if (args.trim() === '') return;
      const field = `\`messages[${i}].tool_calls[${j}].function.arguments\``;
      let parsed: unknown;
      try {
        parsed = JSON.parse(args);
      } catch (err) {
        fail(`${field} must be a valid JSON object string: ${(err as Error).message}`);
      }
      if (!isObject(parsed)) fail(`${field} must be a valid JSON object string`);
      const tool = tools?.find((t) => (t.function as { name?: unknown } | undefined)?.name === call.function.name);
      const violation = tool ? schemaViolation(parsed, (tool.function as { parameters?: unknown }).parameters) : null;
      if (violation) fail(`${field} does not match the parameters of tool "${call.function.name}": ${violation}`);
    });
  }
}

export function checkMessagesNotEmpty(messages: readonly unknown[]): void {
  if (messages.length === 0) fail("The 'messages' field cannot be empty. At least one message is required.");
}
