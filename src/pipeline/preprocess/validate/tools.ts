// Chat `tools` and `tool_choice`: their shapes as serde reads them and their rules (function
// names, parameters, a tool_choice that names a tool in `tools`), and the deprecated
// `functions` / `function_call` that answer 501.

import { NotImplementedError } from '../../../protocols/index.js';
import { deserializeError, invalidType, isObject } from '../json-types.js';
import { fail, VALIDATION_PREFIX } from '../validation-failure.js';
import type { Body } from './root.js';

const MAX_FUNCTION_NAME_LENGTH = 128;
const FUNCTION_NAME = /^[A-Za-z0-9_-]*$/;

export function checkToolShapes(tools: unknown): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw invalidType('tools', tools, 'a sequence');
  tools.forEach((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) throw invalidType(path, tool, 'a tool object');
    if (tool.type === undefined) throw deserializeError(path, 'missing field `type`');
    if (tool.type !== 'function') throw deserializeError(`${path}.type`, `unknown variant \`${String(tool.type)}\`, expected \`function\``);
    if (!isObject(tool.function)) throw deserializeError(path, 'missing field `function`');
    const name = tool.function.name;
    if (name === undefined) throw deserializeError(`${path}.function`, 'missing field `name`');
    if (typeof name !== 'string') throw invalidType(`${path}.function.name`, name, 'a string');
  });
}

export function checkToolRules(tools: Body[] | null | undefined): void {
  if (!tools) return;
  tools.forEach((tool, i) => {
    const fn = tool.function as { name: string; parameters?: unknown };
    const bytes = Buffer.byteLength(fn.name);
    if (bytes > MAX_FUNCTION_NAME_LENGTH) {
      fail(`Function name at index ${i} exceeds ${MAX_FUNCTION_NAME_LENGTH} character limit, got ${bytes} characters`);
    }
    if (fn.name.trim() === '') fail(`Function name at index ${i} cannot be empty`);
    if (!FUNCTION_NAME.test(fn.name)) {
      fail(`Function at index ${i} has an invalid name: "${fn.name}". Only a-z, A-Z, 0-9, underscores, and dashes are allowed.`);
    }
    if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) {
      fail(`Function parameters at index ${i} for "${fn.name}" must be a JSON Schema object`);
    }
  });
}

export function checkToolChoiceShape(choice: unknown): void {
  if (choice === undefined || choice === null) return;
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) {
      throw deserializeError('tool_choice', `unknown variant \`${choice}\`, expected one of \`none\`, \`auto\`, \`required\``);
    }
    return;
  }
  if (!isObject(choice) || !isObject(choice.function) || typeof choice.function.name !== 'string') {
    throw invalidType('tool_choice', choice, '"none", "auto", "required" or {"type":"function","function":{"name":...}}');
  }
}

export function checkToolChoiceRules(choice: unknown, tools: Body[] | null | undefined): void {
  if (choice === 'required' && (!tools || tools.length === 0)) fail('tool_choice is "required" but tools is empty');
  if (!isObject(choice)) return;
  const name = (choice.function as { name: string }).name;
  if (!tools?.some((t) => (t.function as { name: string }).name === name)) {
    fail(`tool named "${name}" in tool_choice is not present in tools`);
  }
}

export function checkDeprecatedFunctions(body: Body): void {
  if (body.function_call !== undefined && body.function_call !== null) {
    throw new NotImplementedError(
      `${VALIDATION_PREFIX}\`function_call\` is deprecated. Please migrate to use \`tool_choice\` instead.`,
    );
  }
  if (body.functions !== undefined && body.functions !== null) {
    throw new NotImplementedError(`${VALIDATION_PREFIX}\`functions\` is deprecated. Please migrate to use \`tools\` instead.`);
  }
}
