// qwen3_coder, glm47 and minimax_m2: parameters become the arguments object piece by piece.
// Cases after upstream's lib/parsers/src/tool_calling (xml/*, test_cases/fixtures).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  glm47ToolCallParser,
  minimaxM2ToolCallParser,
  qwen3CoderToolCallParser,
} from '../../../../../../src/pipeline/postprocess/parsers/tool/markup/xml-calls.js';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, builtCall, counted } from '../support.js';

const WEATHER = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: {
        location: { type: 'string' },
        days: { type: 'integer' },
        metric: { type: 'boolean' },
        options: { type: 'object' },
        zip: { type: 'string' },
        ratio: { type: ['number', 'null'] },
      },
    },
  },
];

test('qwen3_coder: one call, values typed by the schema, text around it', () => {
  const text =
    'Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nSan Francisco, CA\n</parameter>\n' +
    '<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n<parameter=zip>\n94103\n</parameter>\n' +
    '<parameter=options>\n{"hourly": true}\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n</function>\n</tool_call> Done.';
  assertToolParse(
    qwen3CoderToolCallParser,
    text,
    [
      { content: 'Let me check.\n' },
      builtCall(1, 'get_weather', { location: 'San Francisco, CA', days: 3, metric: true, zip: '94103', options: { hourly: true }, ratio: 0.5 }),
      { content: ' Done.' },
    ],
    { tools: WEATHER },
  );
});

test('qwen3_coder: without a schema values stay text; several calls; a call without parameters', () => {
  const text =
    '<tool_call>\n<function=a>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>\n' +
    '<tool_call>\n<function=b>\n</function>\n</tool_call>';
  assertToolParse(qwen3CoderToolCallParser, text, [builtCall(1, 'a', { n: '3' }), { content: '\n' }, builtCall(2, 'b', {})]);
});

test('qwen3_coder: two functions in one <tool_call>', () => {
  const text = '<tool_call><function=a><parameter=x>1</parameter></function><function=b></function></tool_call>';
  assertToolParse(qwen3CoderToolCallParser, text, [builtCall(1, 'a', { x: '1' }), builtCall(2, 'b', {})]);
});

test('qwen3_coder: each parameter streams as it completes', () => {
  const parser = counted(qwen3CoderToolCallParser);
  assert.deepEqual(parser.push('<tool_call><function=f>'), [{ type: 'call_start', index: 0, id: 'call-1', name: 'f' }]);
  assert.deepEqual(parser.push('<parameter=a>x</parameter>'), [{ type: 'call_arguments', index: 0, fragment: '{"a":"x"' }]);
  assert.deepEqual(parser.push('<parameter=b>y</para'), []);
  assert.deepEqual(parser.push('meter></function>'), [
    { type: 'call_arguments', index: 0, fragment: ',"b":"y"}' },
    { type: 'call_end', index: 0 },
  ]);
});

test('qwen3_coder: markup that is not a call is content', () => {
  assertToolParse(qwen3CoderToolCallParser, 'a <tool_call> b', [{ content: 'a <tool_call> b' }]);
  assertToolParse(qwen3CoderToolCallParser, '<tool_call>', [{ content: '<tool_call>' }]);
  assertToolParse(qwen3CoderToolCallParser, 'x <tool_call><function=bad name!>', [{ content: 'x <tool_call><function=bad name!>' }]);
  assertToolParse(qwen3CoderToolCallParser, 'plain <tool text', [{ content: 'plain <tool text' }]);
});

test('qwen3_coder: a call cut off by the end of the stream is closed with what it has', () => {
  const text = '<tool_call><function=f><parameter=a>1</parameter><parameter=b>tw';
  assertToolParse(qwen3CoderToolCallParser, text, [builtCall(1, 'f', { a: '1', b: 'tw' })]);
});

test('glm47: name then key/value pairs; JSON objects, arrays and strings read as such, the rest text', () => {
  const text =
    'Sure.<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n' +
    '<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n<arg_key>tags</arg_key><arg_value>["a","b"]</arg_value>\n</tool_call>' +
    '<tool_call>now</tool_call>bye';
  assertToolParse(glm47ToolCallParser, text, [
    { content: 'Sure.' },
    builtCall(1, 'get_weather', { location: 'Paris', days: '3', tags: ['a', 'b'] }),
    builtCall(2, 'now', {}),
    { content: 'bye' },
  ]);
});

test('glm47: schema typing with the aliases models write, XML entities decoded', () => {
  const tools = [
    {
      name: 'book',
      parameters: { properties: { n: { type: 'int' }, ok: { type: 'bool' }, price: { type: 'float' }, q: { type: 'string' } } },
    },
  ];
  const text =
    '<tool_call>book<arg_key>n</arg_key><arg_value>2</arg_value><arg_key>ok</arg_key><arg_value>yes</arg_value>' +
    '<arg_key>price</arg_key><arg_value>9.5</arg_value><arg_key>q</arg_key><arg_value>a &lt;b&gt; &amp; c</arg_value>' +
    '<arg_key>filters</arg_key><arg_value>{"category": "books"}</arg_value></tool_call>';
  assertToolParse(
    glm47ToolCallParser,
    text,
    [builtCall(1, 'book', { n: 2, ok: true, price: 9.5, q: 'a <b> & c', filters: { category: 'books' } })],
    { tools },
  );
});

test('glm47: no name is no call', () => {
  assertToolParse(glm47ToolCallParser, '<tool_call><arg_key>k</arg_key></tool_call>', [{ content: '<tool_call><arg_key>k</arg_key></tool_call>' }]);
});

test('minimax_m2: invokes in a section, quoted names, schema typing', () => {
  const text =
    'Checking.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">Tokyo</parameter>\n' +
    '<parameter name="days">2</parameter>\n</invoke>\n<invoke name="get_time">\n<parameter name="zone">JST</parameter>\n</invoke>\n' +
    '</minimax:tool_call>\nThat is all.';
  assertToolParse(
    minimaxM2ToolCallParser,
    text,
    [
      { content: 'Checking.\n' },
      builtCall(1, 'get_weather', { location: 'Tokyo', days: 2 }),
      builtCall(2, 'get_time', { zone: 'JST' }),
      { content: '\nThat is all.' },
    ],
    { tools: WEATHER },
  );
});

test('minimax_m2: junk inside the section is released as content', () => {
  assertToolParse(minimaxM2ToolCallParser, '<minimax:tool_call>oops</minimax:tool_call>', [{ content: '<minimax:tool_call>oops</minimax:tool_call>' }]);
});

test('qwen3_coder: a bare <function=…> without the <tool_call> wrapper is a call (upstream back-off)', () => {
  const text =
    'I will run it.\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n' +
    '<function=now>\n</function> done';
  assertToolParse(
    qwen3CoderToolCallParser,
    text,
    [
      { content: 'I will run it.\n' },
      builtCall(1, 'get_weather', { location: 'Paris', days: 2 }),
      { content: '\n' },
      builtCall(2, 'now', {}),
      { content: ' done' },
    ],
    { tools: WEATHER },
  );
});

test('qwen3_coder: bare and wrapped calls in one message; a bare call cut off is closed', () => {
  const text = '<function=a><parameter=x>1</parameter></function><tool_call><function=b></function></tool_call><function=c><parameter=y>t';
  assertToolParse(qwen3CoderToolCallParser, text, [builtCall(1, 'a', { x: '1' }), builtCall(2, 'b', {}), builtCall(3, 'c', { y: 't' })]);
  assertToolParse(qwen3CoderToolCallParser, 'see <function=bad name!> here', [{ content: 'see <function=bad name!> here' }]);
});

test('minimax_m2: a bare <invoke …> without the wrapper is a call (upstream back-off)', () => {
  const text = 'Ok.\n<invoke name="get_time">\n<parameter name="zone">JST</parameter>\n</invoke>\nThanks.';
  assertToolParse(minimaxM2ToolCallParser, text, [{ content: 'Ok.\n' }, builtCall(1, 'get_time', { zone: 'JST' }), { content: '\nThanks.' }]);
});

test('glm47: an array parameter not written as JSON is split on commas, as upstream', () => {
  const tools = [{ name: 'tag', parameters: { properties: { tags: { type: 'array' }, ids: { type: 'array' }, one: { type: 'array' } } } }];
  const text =
    '<tool_call>tag<arg_key>tags</arg_key><arg_value>red, green ,blue</arg_value>' +
    '<arg_key>ids</arg_key><arg_value>[1, 2]</arg_value><arg_key>one</arg_key><arg_value>solo</arg_value></tool_call>';
  assertToolParse(glm47ToolCallParser, text, [builtCall(1, 'tag', { tags: ['red', 'green', 'blue'], ids: [1, 2], one: ['solo'] })], { tools });
});

test('glm47: a call to a function the request does not offer is content, as upstream', () => {
  const tools = [{ name: 'get_weather' }];
  const unknown = '<tool_call>rm_rf<arg_key>path</arg_key><arg_value>/</arg_value></tool_call>';
  assertToolParse(glm47ToolCallParser, `Hmm. ${unknown}<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>`, [
    { content: `Hmm. ${unknown}` },
    builtCall(1, 'get_weather', { city: 'Oslo' }),
  ], { tools });
  // Without tools in the request nothing is checked.
  assertToolParse(glm47ToolCallParser, unknown, [builtCall(1, 'rm_rf', { path: '/' })]);
});

test('nemotron_nano: reads the qwen3_coder format, schema typing and the bare back-off included', () => {
  const nano = TOOL_CALL_PARSERS.nemotron_nano;
  const text =
    'Looking.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nBergen\n</parameter>\n<parameter=days>\n4\n</parameter>\n</function>\n</tool_call>' +
    '<function=now>\n</function> end';
  assertToolParse(nano, text, [{ content: 'Looking.\n' }, builtCall(1, 'get_weather', { location: 'Bergen', days: 4 }), builtCall(2, 'now', {}), { content: ' end' }], {
    tools: WEATHER,
  });
  assert.equal(nano, qwen3CoderToolCallParser);
});
