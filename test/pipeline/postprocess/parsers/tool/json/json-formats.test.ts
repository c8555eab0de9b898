import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS, type ToolCallParserFactory } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, call, counted } from '../support.js';

const WEATHER = '{"location": "San Francisco, CA", "unit": "fahrenheit"}';
const TIME = '{"timezone":"UTC"}';

function parser(name: keyof typeof TOOL_CALL_PARSERS): ToolCallParserFactory {
  const make = TOOL_CALL_PARSERS[name];
  if (make === undefined) throw new Error(`no ${name} parser`);
  return make;
}

describe('hermes', () => {
  const hermes = parser('hermes');

  it('parses a call with text before and after, as Qwen writes it', () => {
    assertToolParse(
      hermes,
      `Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": ${WEATHER}}\n</tool_call>\nDone.`,
      [{ content: 'Let me check.\n' }, call(1, 'get_weather', WEATHER), { content: '\nDone.' }],
    );
  });

  it('parses several calls in one message, arguments before the name included', () => {
    assertToolParse(
      hermes,
      `<tool_call>{"name":"get_weather","arguments":${WEATHER}}\n</tool_call>\n<tool_call>{"arguments":${TIME},"name":"get_time"}</tool_call>`,
      [call(1, 'get_weather', WEATHER), call(2, 'get_time', TIME)],
    );
  });

  it('releases malformed JSON as content, markers included', () => {
    const text = 'a <tool_call>{"name" get_weather}</tool_call> b';
    assertToolParse(hermes, text, [{ content: text }]);
  });

  it('closes a call whose JSON breaks once started, with what was generated', () => {
    assertToolParse(hermes, '<tool_call>{"name": "f", "arguments": {"a": 1</tool_call> after', [
      call(1, 'f', '{"a": 1'),
      { content: ' after' },
    ]);
  });

  it('reads the next call when an end marker is missing', () => {
    assertToolParse(hermes, '<tool_call>{"name":"a","arguments":{}}\n<tool_call>{"name":"b","arguments":{"x":1}}</tool_call>', [
      call(1, 'a', '{}'),
      call(2, 'b', '{"x":1}'),
    ]);
  });

  it('closes an unterminated call at the end of the stream', () => {
    assertToolParse(hermes, '<tool_call>{"name": "f", "arguments": {"a": [1, 2', [call(1, 'f', '{"a": [1, 2')]);
    assertToolParse(hermes, 'x <tool_call>{"nam', [{ content: 'x <tool_call>{"nam' }]);
  });

  it('leaves text without markers alone, a partial marker at the end included', () => {
    assertToolParse(hermes, 'plain {"name": "f"} text <tool_ca', [{ content: 'plain {"name": "f"} text <tool_ca' }]);
  });

  it('gives double-encoded arguments as their JSON', () => {
    assertToolParse(hermes, '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>', [call(1, 'f', '{"a": 1}')]);
  });
});

describe('qwen25', () => {
  const qwen25 = parser('qwen25');
  const LOOKUP = '{"query": "tide tables", "limit": 5}';

  it("reads Hermes' format: text around calls, several calls, a name-only call", () => {
    assertToolParse(
      qwen25,
      `Searching.\n<tool_call>\n{"name": "search", "arguments": ${LOOKUP}}\n</tool_call>\n<tool_call>{"name": "clock"}</tool_call>\nDone.`,
      [{ content: 'Searching.\n' }, call(1, 'search', LOOKUP), call(2, 'clock', '{}'), { content: '\nDone.' }],
    );
  });

  it('releases a call only once </tool_call> closes it', () => {
    const q = counted(qwen25);
    assert.deepEqual(q.push(`<tool_call>{"name": "search", "arguments": ${LOOKUP}}`), []);
    assert.deepEqual(q.push('\n</tool_call>'), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'search' },
      { type: 'call_arguments', index: 0, fragment: LOOKUP },
      { type: 'call_end', index: 0 },
    ]);
  });

  it('never shows its markup: a wrapper that holds no call, a broken call, a call never closed are dropped', () => {
    assertToolParse(qwen25, 'a <tool_call>not json</tool_call> b', [{ content: 'a  b' }]);
    assertToolParse(qwen25, 'a <tool_call>{"name": "f", "arguments": {"x": 1} oops</tool_call> b', [{ content: 'a  b' }]);
    assertToolParse(qwen25, `a <tool_call>{"name": "f", "arguments": ${LOOKUP}}`, [{ content: 'a ' }]);
    assertToolParse(qwen25, 'a <tool_call>{"name": "f", "argu', [{ content: 'a ' }]);
  });

  it('keeps the calls closed before one the stream cuts off', () => {
    assertToolParse(qwen25, `<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {"k"`, [call(1, 'a', '{}')]);
  });
});

describe('llama3_json', () => {
  const llama = parser('llama3_json');

  it('parses the python_tag form and the bare form', () => {
    assertToolParse(llama, `<|python_tag|>{"name": "get_weather", "parameters": ${WEATHER}}`, [
      call(1, 'get_weather', WEATHER),
    ]);
    assertToolParse(llama, `\n{"name": "get_weather", "parameters": ${WEATHER}}`, [
      { content: '\n' },
      call(1, 'get_weather', WEATHER),
    ]);
  });

  it('parses several calls separated by ;', () => {
    assertToolParse(llama, `{"name": "get_weather", "parameters": ${WEATHER}}; {"name": "get_time", "parameters": ${TIME}}`, [
      call(1, 'get_weather', WEATHER),
      call(2, 'get_time', TIME),
    ]);
  });

  it('takes JSON only at the start of the message, and releases JSON that is not a call', () => {
    assertToolParse(llama, 'The answer is {"name": "x", "parameters": {}}', [
      { content: 'The answer is {"name": "x", "parameters": {}}' },
    ]);
    assertToolParse(llama, '{"answer": 42} is the result', [{ content: '{"answer": 42} is the result' }]);
  });

  it('keeps text before the tag and after the call', () => {
    assertToolParse(llama, `Sure. <|python_tag|>{"name": "get_time", "parameters": ${TIME}} ok`, [
      { content: 'Sure. ' },
      call(1, 'get_time', TIME),
      { content: ' ok' },
    ]);
  });
});

describe('mistral', () => {
  const mistral = parser('mistral');

  it('parses the list form, closed or not', () => {
    const list = `[{"name": "get_weather", "arguments": ${WEATHER}}, {"name": "get_time", "arguments": ${TIME}}]`;
    const calls = [call(1, 'get_weather', WEATHER), call(2, 'get_time', TIME)];
    assertToolParse(mistral, `[TOOL_CALLS]${list}`, calls);
    assertToolParse(mistral, `Checking. [TOOL_CALLS]${list}[/TOOL_CALLS] done`, [
      { content: 'Checking. ' },
      ...calls,
      { content: ' done' },
    ]);
  });

  it('parses a single object, as upstream fixture writes it', () => {
    assertToolParse(mistral, `[TOOL_CALLS]{"name":"get_weather","arguments":${WEATHER}}[/TOOL_CALLS]`, [
      call(1, 'get_weather', WEATHER),
    ]);
  });

  it('parses the newer name[ARGS] form, one call per marker', () => {
    assertToolParse(mistral, `[TOOL_CALLS]get_weather[ARGS]${WEATHER}[TOOL_CALLS]get_time[ARGS]${TIME}`, [
      call(1, 'get_weather', WEATHER),
      call(2, 'get_time', TIME),
    ]);
  });

  it('releases what is not a call', () => {
    assertToolParse(mistral, '[TOOL_CALLS] is a marker: ok', [{ content: '[TOOL_CALLS] is a marker: ok' }]);
    assertToolParse(mistral, '[TOOL_CALLS][{"x": 1}]', [{ content: '[TOOL_CALLS][{"x": 1}]' }]);
  });
});

describe('jamba, nemotron_deci, phi4', () => {
  const list = `[{"name": "get_weather", "arguments": ${WEATHER}}, {"name": "get_time", "arguments": ${TIME}}]`;
  const calls = [call(1, 'get_weather', WEATHER), call(2, 'get_time', TIME)];

  it('jamba: <tool_calls>[…]</tool_calls>', () => {
    assertToolParse(parser('jamba'), `Sure.\n<tool_calls>${list}</tool_calls>`, [{ content: 'Sure.\n' }, ...calls]);
  });

  it('nemotron_deci: <TOOLCALL>[…]</TOOLCALL>', () => {
    assertToolParse(parser('nemotron_deci'), `<TOOLCALL>${list}</TOOLCALL>\nThanks`, [...calls, { content: '\nThanks' }]);
    assertToolParse(parser('nemotron_deci'), '<TOOLCALL>[{"name":"a","arguments":{}}, {"name":"b","arguments":{"x"]</TOOLCALL> end', [
      call(1, 'a', '{}'),
      call(2, 'b', '{"x"'),
      { content: '] end' },
    ]);
    assertToolParse(parser('nemotron_deci'), '<TOOLCALL>[not json]</TOOLCALL>', [
      { content: '<TOOLCALL>[not json]</TOOLCALL>' },
    ]);
  });

  it('phi4: functools[…] and the single object of upstream fixture', () => {
    assertToolParse(parser('phi4'), `functools${list}`, calls);
    assertToolParse(parser('phi4'), `functools{"name":"get_time","arguments":${TIME}}`, [call(1, 'get_time', TIME)]);
  });
});

describe('default', () => {
  const generic = parser('default');

  it('detects bare JSON calls, objects or lists, as upstream', () => {
    assertToolParse(generic, '{ "name": "hello", "parameters": { "x": 1, "y": 2 } }', [
      call(1, 'hello', '{ "x": 1, "y": 2 }'),
    ]);
    assertToolParse(generic, '[{ "name": "first", "parameters": { "a": 1 } }, { "name": "second", "parameters": { "b": 2 } }]', [
      call(1, 'first', '{ "a": 1 }'),
      call(2, 'second', '{ "b": 2 }'),
    ]);
  });

  it('detects the nemotron and llama markers', () => {
    assertToolParse(generic, `<TOOLCALL>[{"name": "get_time", "arguments": ${TIME}}]</TOOLCALL>`, [call(1, 'get_time', TIME)]);
    assertToolParse(generic, `hi <|python_tag|>{"name": "get_time", "arguments": ${TIME}}`, [
      { content: 'hi ' },
      call(1, 'get_time', TIME),
    ]);
  });

  it('leaves plain text alone', () => {
    assertToolParse(generic, 'Hello, how can I help?', [{ content: 'Hello, how can I help?' }]);
  });
});

describe('the nested OpenAI shape {"type": "function", "function": {…}}', () => {
  const nested = (name: string, args: string): string => `{"type": "function", "function": {"name": "${name}", "arguments": ${args}}}`;

  it('is read through its function object, in every JSON format', () => {
    assertToolParse(parser('hermes'), `Sure.\n<tool_call>\n${nested('get_weather', WEATHER)}\n</tool_call>`, [
      { content: 'Sure.\n' },
      call(1, 'get_weather', WEATHER),
    ]);
    assertToolParse(parser('nemotron_deci'), `<TOOLCALL>[${nested('a', '{}')}, {"name": "b", "arguments": ${TIME}}]</TOOLCALL>`, [
      call(1, 'a', '{}'),
      call(2, 'b', TIME),
    ]);
    assertToolParse(parser('llama3_json'), nested('get_time', TIME), [call(1, 'get_time', TIME)]);
  });

  it('takes keys in any order, arguments given as a string, and other keys after the function object', () => {
    assertToolParse(
      parser('hermes'),
      '<tool_call>{"function": {"arguments": "{\\"a\\": 1}", "name": "f"}, "type": "function", "id": "x"}</tool_call>',
      [call(1, 'f', '{"a": 1}')],
    );
  });

  it('a function object without a name is no call; one broken after its name is closed with what it has', () => {
    const nameless = '<tool_call>{"type": "function", "function": {"arguments": {}}}</tool_call>';
    assertToolParse(parser('hermes'), nameless, [{ content: nameless }]);
    assertToolParse(parser('hermes'), '<tool_call>{"type": "function", "function": {"name": "f", "arguments": {"a": 1} x</tool_call> after', [
      call(1, 'f', '{"a": 1}'),
      { content: 'x after' },
    ]);
  });

  it('a call cut off by the end of the stream is closed', () => {
    assertToolParse(parser('hermes'), '<tool_call>{"type": "function", "function": {"name": "f", "arguments": {"a": 1', [
      call(1, 'f', '{"a": 1'),
    ]);
  });
});
