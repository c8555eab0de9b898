// Chat `response_format`: text, json_object, or json_schema with a named object schema.

import { deserializeError, invalidType, isObject } from '../json-types.js';
import { fail } from '../validation-failure.js';

export function checkResponseFormatShape(format: unknown): void {
  if (format === undefined || format === null) return;
  if (!isObject(format)) throw invalidType('response_format', format, 'an object');
  if (!['text', 'json_object', 'json_schema'].includes(format.type as string)) {
    throw deserializeError(
      'response_format.type',
      `unknown variant \`${String(format.type)}\`, expected one of \`text\`, \`json_object\`, \`json_schema\``,
    );
  }
  if (format.type !== 'json_schema') return;
  if (!isObject(format.json_schema)) throw deserializeError('response_format', 'missing field `json_schema`');
  if (typeof format.json_schema.name !== 'string') throw deserializeError('response_format.json_schema', 'missing field `name`');
}

export function checkResponseFormatRules(format: unknown): void {
  if (!isObject(format) || format.type !== 'json_schema') return;
  const schema = format.json_schema as { name: string; schema?: unknown };
  if (schema.name === '') fail('`response_format.json_schema.name` cannot be empty');
  if (schema.schema === undefined || schema.schema === null) {
    fail('`response_format.json_schema.schema` is required when `response_format.type` is `json_schema`');
  }
  if (!isObject(schema.schema)) {
    const kind = Array.isArray(schema.schema) ? 'array' : typeof schema.schema === 'number' ? 'number' : typeof schema.schema;
    fail(`\`response_format.json_schema.schema\` must be a JSON object, got ${kind}`);
  }
}
