// The JSON tool-call formats of reference/http.md §8.1, with the markers upstream's parser configs
// use (lib/parsers/src/tool_calling/config.rs). Each is a JsonToolFormat for the shared parser.

import type { ToolCallParserFactory } from '../parser.js';
import { JsonToolCallParser, type JsonToolFormat } from './json-framed.js';
import { JsonCallListReader, JsonCallReader } from './json-stream.js';
import { MistralNamedCallReader } from './mistral-named.js';

const oneObject = (): JsonCallReader => new JsonCallReader();
const objectOrArray = (): JsonCallListReader => new JsonCallListReader(true);

/** `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, several per message (Hermes, Qwen2.5/3). */
const HERMES: JsonToolFormat = { starts: ['<tool_call>'], ends: ['</tool_call>'], body: oneObject };

/** Hermes' markers, but a call counts only once `</tool_call>` closes it; markup never reaches the text. */
const QWEN25: JsonToolFormat = { ...HERMES, wholeBodies: true };

/** `<|python_tag|>{"name": …, "parameters": {…}}`, or the bare object; several separated by `;`. */
const LLAMA3_JSON: JsonToolFormat = {
  starts: ['<|python_tag|>'],
  ends: [],
  body: objectOrArray,
  separator: ';',
  bareAtStart: true,
};

/** `[TOOL_CALLS][{…}, …]` (or one object), optionally closed by `[/TOOL_CALLS]`; newer models write `[TOOL_CALLS]name[ARGS]{…}`. */
const MISTRAL: JsonToolFormat = {
  starts: ['[TOOL_CALLS]'],
  ends: ['[/TOOL_CALLS]'],
  body: () => new MistralNamedCallReader(),
};

/** `<tool_calls>[{…}, …]</tool_calls>` (Jamba). */
const JAMBA: JsonToolFormat = { starts: ['<tool_calls>'], ends: ['</tool_calls>'], body: objectOrArray };

/** `<TOOLCALL>[{…}, …]</TOOLCALL>` (Nemotron Ultra / Deci). */
const NEMOTRON_DECI: JsonToolFormat = { starts: ['<TOOLCALL>'], ends: ['</TOOLCALL>'], body: objectOrArray };

/** `functools[{…}, …]` (Phi-4). */
const PHI4: JsonToolFormat = { starts: ['functools'], ends: [], body: objectOrArray };

/** Generic detection, as upstream's default config: the nemotron and llama markers, or bare JSON. */
const DEFAULT: JsonToolFormat = {
  starts: ['<TOOLCALL>', '<|python_tag|>'],
  ends: ['</TOOLCALL>'],
  body: objectOrArray,
  bareAtStart: true,
};

const factory =
  (format: JsonToolFormat): ToolCallParserFactory =>
  (options) =>
    new JsonToolCallParser(format, options);

export const hermesToolCallParser = factory(HERMES);
export const qwen25ToolCallParser = factory(QWEN25);
export const llama3JsonToolCallParser = factory(LLAMA3_JSON);
export const mistralToolCallParser = factory(MISTRAL);
export const jambaToolCallParser = factory(JAMBA);
export const nemotronDeciToolCallParser = factory(NEMOTRON_DECI);
export const phi4ToolCallParser = factory(PHI4);
export const defaultToolCallParser = factory(DEFAULT);
