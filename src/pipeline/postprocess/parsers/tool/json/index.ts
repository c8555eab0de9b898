// The JSON tool-call formats, read by one streaming reader, and the parsers of guided JSON.
export {
  defaultToolCallParser,
  hermesToolCallParser,
  jambaToolCallParser,
  llama3JsonToolCallParser,
  mistralToolCallParser,
  nemotronDeciToolCallParser,
  phi4ToolCallParser,
  qwen25ToolCallParser,
} from './json-formats.js';
export { namedToolCallParser, requiredToolCallParser } from './guided-calls.js';
export { JsonValueScanner } from './json-value-scanner.js';
export type { CallEvent } from './json-stream.js';
