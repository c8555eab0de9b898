// Every reasoning parser name on its model family's real output: the same split whether the text
// comes in one push, one character at a time, or cut anywhere (markers split across pushes), with
// the reply's start decided per request as upstream decides it (from the rendered prompt, or always
// inside for the families whose template always opens the span).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REASONING_PARSERS, reasoningFor } from '../../../../../src/pipeline/postprocess/index.js';
import { REASONING_PARSER_NAMES, type ReasoningParserName } from '../../../../../src/protocols/index.js';
import { assertEveryCutting } from '../support.js';

interface Case {
  what: string;
  text: string;
  reasoning: string;
  content: string;
  /** The end of the prompt the chat template rendered for the request (default: a closed turn). */
  prompt?: string;
  /** The request's folded chat template arguments (default: none). */
  args?: Record<string, unknown>;
}

/** Qwen3-2507 thinking and DeepSeek-style templates end the generation prompt inside an open span. */
const OPEN_THINK_PROMPT = '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n';
const HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

const GPT_OSS_REASONING =
  'The user asks a simple factual question: capital of Brazil. The answer is Brasília. No additional explanation needed.';

const CASES: Record<ReasoningParserName, Case[]> = {
  basic: [
    { what: 'text before and after the span', text: 'Sure. <think>2 + 2 is 4.</think> The answer is 4.', reasoning: '2 + 2 is 4.', content: 'Sure.  The answer is 4.' },
    { what: 'no end marker', text: '<think>still weighing it', reasoning: 'still weighing it', content: '' },
    { what: 'no markers', text: 'Just an answer, < and > included.', reasoning: '', content: 'Just an answer, < and > included.' },
  ],
  deepseek_r1: [
    {
      what: 'starts inside the span',
      text: 'Okay, the user asks for 2+2.\nThat is 4.\n</think>\n\nThe answer is **4**.',
      reasoning: 'Okay, the user asks for 2+2.\nThat is 4.\n',
      content: '\n\nThe answer is **4**.',
    },
    { what: 'a <think> the model writes anyway is dropped', text: '<think>\nHmm.\n</think>\n\nHi!', reasoning: '\nHmm.\n', content: '\n\nHi!' },
    { what: 'no end marker', text: 'Let me think about this for a while', reasoning: 'Let me think about this for a while', content: '' },
  ],
  qwen3: [
    {
      what: 'Qwen3 thinking output',
      text: '<think>\nThe user greets me. I should greet back.\n</think>\n\nHello! How can I help you today?',
      reasoning: '\nThe user greets me. I should greet back.\n',
      content: '\n\nHello! How can I help you today?',
    },
    { what: 'a reply without tags is all answer', text: 'Hello! How can I help?', reasoning: '', content: 'Hello! How can I help?' },
    {
      what: 'the prompt left <think> open (Qwen3-2507 thinking)',
      prompt: OPEN_THINK_PROMPT,
      text: 'Short thought.\n</think>\n\nAnswer.',
      reasoning: 'Short thought.\n',
      content: '\n\nAnswer.',
    },
    { what: 'only a closing tag, prompt closed: the stray tag is dropped', text: 'Short thought.</think>Answer.', reasoning: '', content: 'Short thought.Answer.' },
    { what: 'a tool call with no reasoning is answer text', text: HERMES_CALL, reasoning: '', content: HERMES_CALL },
    { what: 'a tool call inside the span stays reasoning', text: `<think>maybe ${HERMES_CALL}</think>No.`, reasoning: `maybe ${HERMES_CALL}`, content: 'No.' },
    {
      what: 'reasoning then a hermes tool call',
      text: '<think>I need the weather tool.</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      reasoning: 'I need the weather tool.',
      content: '\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    },
    { what: 'no end marker', text: '<think>\nCounting the letters', reasoning: '\nCounting the letters', content: '' },
  ],
  gpt_oss: [
    {
      what: 'analysis then final',
      text: `<|channel|>analysis<|message|>${GPT_OSS_REASONING}<|end|><|start|>assistant<|channel|>final<|message|>The capital of Brazil is Brasília.`,
      reasoning: GPT_OSS_REASONING,
      content: 'The capital of Brazil is Brasília.',
    },
    {
      what: 'analysis then a tool call in commentary, passed verbatim',
      text: '<|channel|>analysis<|message|>Use get_system_health.<|end|><|start|>assistant<|channel|>commentary to=functions.get_system_health <|constrain|>json<|message|>{}<|call|>',
      reasoning: 'Use get_system_health.',
      content: '<|start|>assistant<|channel|>commentary to=functions.get_system_health <|constrain|>json<|message|>{}<|call|>',
    },
    { what: 'no end marker', text: '<|channel|>analysis<|message|>thinking, cut off', reasoning: 'thinking, cut off', content: '' },
    { what: 'plain text without harmony markup', text: 'Just text.', reasoning: '', content: 'Just text.' },
  ],
  granite: [
    {
      what: 'thought process then response',
      text: 'Here is my thought process:\nThe user wants a haiku.\n\nHere is my response:\nAutumn moonlight...',
      reasoning: '\nThe user wants a haiku.\n\n',
      content: '\nAutumn moonlight...',
    },
    { what: 'text before, contracted markers', text: "Okay. Here's my thought process: think. Here's my response: done.", reasoning: ' think. ', content: 'Okay.  done.' },
    { what: 'no end marker', text: "Here's my thought process: still going", reasoning: ' still going', content: '' },
  ],
  kimi: [
    { what: 'text before and after the span', text: '好的。◁think▷用户在问候。◁/think▷你好！', reasoning: '用户在问候。', content: '好的。你好！' },
    { what: '<think> is not a Kimi marker', text: '<think>x</think>y', reasoning: '', content: '<think>x</think>y' },
    { what: 'no end marker', text: '◁think▷思考中', reasoning: '思考中', content: '' },
  ],
  mistral: [
    { what: 'Magistral output', text: '[THINK]6 times 7 is 42.[/THINK]The answer is 42.', reasoning: '6 times 7 is 42.', content: 'The answer is 42.' },
    { what: 'the template opened the span', text: 'Quick check.[/THINK]Yes.', reasoning: 'Quick check.', content: 'Yes.' },
    { what: 'no end marker', text: '[THINK]long thought', reasoning: 'long thought', content: '' },
  ],
  nemotron_deci: [
    { what: 'Nemotron output', text: '<think>\nThe user asks for a fact.\n</think>\n\nParis.', reasoning: '\nThe user asks for a fact.\n', content: '\n\nParis.' },
    { what: 'detailed thinking off: no span', text: 'Paris.', reasoning: '', content: 'Paris.' },
    { what: 'no end marker', text: 'A<think>B', reasoning: 'B', content: 'A' },
  ],
  glm45: [
    {
      what: 'interleaved thinking around tool calls',
      text: '<think>Need weather.</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call><think>Now summarize.</think>It is sunny.',
      reasoning: 'Need weather.Now summarize.',
      content: '<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>It is sunny.',
    },
    { what: 'no end marker', text: '<think>deliberating', reasoning: 'deliberating', content: '' },
  ],
  minimax_append_think: [
    {
      what: 'MiniMax-M2 output: reasoning without an opening marker, then a tool call',
      text: 'The user wants the weather. I will call the tool.</think>\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
      reasoning: 'The user wants the weather. I will call the tool.',
      content: '\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
    },
    { what: 'no end marker', text: 'still thinking', reasoning: 'still thinking', content: '' },
  ],
  deepseek_v3: [
    { what: 'thinking mode: starts inside', args: { thinking: true }, text: 'Weighing it.</think>Done.', reasoning: 'Weighing it.', content: 'Done.' },
  ],
  deepseek_v3_1: [
    { what: 'thinking mode: starts inside', args: { thinking: true }, text: 'Weighing it.</think>Done.', reasoning: 'Weighing it.', content: 'Done.' },
  ],
  deepseek_v3_2: [
    { what: 'starts inside, a written <think> dropped', text: '<think>Weighing it.</think>Done.', reasoning: 'Weighing it.', content: 'Done.' },
  ],
  deepseek_v4: [
    { what: 'prompt left <think> open', prompt: '<｜Assistant｜><think>', text: 'Hm.</think>Yes.', reasoning: 'Hm.', content: 'Yes.' },
    { what: 'no open span in the prompt: the tags decide', text: 'Sure. <think>Hm.</think>Yes.', reasoning: 'Hm.', content: 'Sure. Yes.' },
    {
      what: 'a DSML tool block ends the reasoning without </think>',
      prompt: '<｜Assistant｜><think>',
      text: 'Need the tool.<｜DSML｜tool_calls>\n<｜DSML｜invoke name="bash">',
      reasoning: 'Need the tool.',
      content: '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="bash">',
    },
    { what: 'a bare DSML invoke ends it too', text: '<think>Need it.<｜DSML｜invoke name="ls">', reasoning: 'Need it.', content: '<｜DSML｜invoke name="ls">' },
    { what: 'a DSML marker that is no tool start stays reasoning', text: '<think>a <｜DSML｜other b', reasoning: 'a <｜DSML｜other b', content: '' },
  ],
  'deepseek-v4': [{ what: 'the kebab alias', text: '<think>Hm.</think>Yes.', reasoning: 'Hm.', content: 'Yes.' }],
  deepseekv4: [{ what: 'the joined alias', text: '<think>Hm.</think>Yes.', reasoning: 'Hm.', content: 'Yes.' }],
  kimi_k25: [
    { what: 'starts inside', text: 'Thinking.</think>Answer.', reasoning: 'Thinking.', content: 'Answer.' },
    {
      what: 'a tool-call section ends the reasoning without </think>',
      text: 'Use the tool.<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0',
      reasoning: 'Use the tool.',
      content: '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0',
    },
  ],
  minimax_m2: [
    {
      what: 'reasoning then its XML tool call',
      text: 'I should call weather.</think><minimax:tool_call><invoke name="get_weather"></invoke></minimax:tool_call>',
      reasoning: 'I should call weather.',
      content: '<minimax:tool_call><invoke name="get_weather"></invoke></minimax:tool_call>',
    },
    {
      what: 'a tool call straight from the reasoning',
      text: 'Calling.<invoke name="get_weather"><parameter name="city">NYC</parameter></invoke>',
      reasoning: 'Calling.',
      content: '<invoke name="get_weather"><parameter name="city">NYC</parameter></invoke>',
    },
    { what: 'a reply that is only a tool call', text: '<minimax:tool_call></minimax:tool_call>', reasoning: '', content: '<minimax:tool_call></minimax:tool_call>' },
  ],
  nemotron_nano: [{ what: 'starts inside', text: 'Checking.\n</think>\nParis.', reasoning: 'Checking.\n', content: '\nParis.' }],
  nemotron3: [{ what: 'starts inside', text: 'Checking.</think>Paris.', reasoning: 'Checking.', content: 'Paris.' }],
  nemotron_v3: [{ what: 'starts inside', text: 'Checking.</think>Paris.', reasoning: 'Checking.', content: 'Paris.' }],
  step3: [{ what: 'starts inside', text: 'Step by step.</think>7.', reasoning: 'Step by step.', content: '7.' }],
  minimax_m3: [
    { what: 'the prompt opened the span', prompt: '<mm:think>', text: 'Weigh it.</mm:think>Yes.', reasoning: 'Weigh it.', content: 'Yes.' },
    { what: 'the reply shows only the end marker', text: 'Weigh it.</mm:think>Yes.', reasoning: 'Weigh it.', content: 'Yes.' },
    { what: 'the reply opens the span itself', text: 'So: <mm:think>hm</mm:think>Yes.', reasoning: 'hm', content: 'So: Yes.' },
    { what: 'no marker at all is answer', text: 'Just yes.', reasoning: '', content: 'Just yes.' },
  ],
  'minimax-m3': [{ what: 'the kebab alias', text: '<mm:think>hm</mm:think>Yes.', reasoning: 'hm', content: 'Yes.' }],
  gemma4: [
    { what: 'the thought label is dropped', text: '<|channel>thought\nAdd them.<channel|>It is 4.', reasoning: 'Add them.', content: 'It is 4.' },
    { what: 'no markers', text: 'It is 4.', reasoning: '', content: 'It is 4.' },
  ],
  'gemma-4': [{ what: 'the kebab alias', text: 'A <|channel>thought\nB<channel|> C', reasoning: 'B', content: 'A  C' }],
  kimi_k3: [
    {
      what: 'the prompt opened the span; the response channel follows',
      prompt: '<|open|>think<|sep|>',
      text: 'Check it.<|close|>think<|sep|><|open|>response<|sep|>Done.',
      reasoning: 'Check it.',
      content: '<|open|>response<|sep|>Done.',
    },
    { what: 'a thinking-off reply', text: '<|open|>response<|sep|>Done.', reasoning: '', content: '<|open|>response<|sep|>Done.' },
  ],
  'kimi-k3': [{ what: 'the kebab alias', text: '<|open|>think<|sep|>a<|close|>think<|sep|>b', reasoning: 'a', content: 'b' }],
};

test('the registry has a parser for every name and nothing else', () => {
  assert.deepEqual(Object.keys(REASONING_PARSERS).sort(), [...REASONING_PARSER_NAMES].sort());
});

for (const name of REASONING_PARSER_NAMES) {
  for (const c of CASES[name]) {
    test(`${name}: ${c.what}, the same split however the text is cut`, () => {
      const make = reasoningFor(name, { chat_template_args: c.args ?? null }, c.prompt ?? '<|im_start|>assistant\n')!;
      assertEveryCutting(make, c.text, { reasoning: c.reasoning, content: c.content });
    });
  }
}

/**
 * The split of `text` for `name` under the request's arguments and rendered prompt, asserted to be
 * the same whether the text comes whole, one character per push or cut anywhere in two.
 */
function split(name: ReasoningParserName, text: string, prompt: string | undefined, args: Record<string, unknown> | null = null) {
  const make = reasoningFor(name, { chat_template_args: args }, prompt)!;
  const parser = make();
  const first = parser.push(text);
  const last = parser.finish();
  const whole = { reasoning: first.reasoning + last.reasoning, content: first.content + last.content };
  assertEveryCutting(make, text, whole);
  return whole;
}

const CLOSED_PROMPT = '<|im_start|>assistant\n';
const DISABLED_PROMPT = '<|im_start|>assistant\n<think>\n\n</think>\n\n';

// The families whose template always opens the span: a reply starts inside whatever the prompt.
const ALWAYS_INSIDE: ReasoningParserName[] = [
  'deepseek_r1', 'deepseek_v3_2', 'step3', 'nemotron_nano', 'nemotron3', 'nemotron_v3', 'kimi_k25', 'minimax_m2', 'minimax_append_think',
];
// The families that start inside only when this request's rendered prompt left `<think>` open.
const FROM_PROMPT: ReasoningParserName[] = ['basic', 'qwen3', 'nemotron_deci', 'glm45', 'deepseek_v4', 'deepseek-v4', 'deepseekv4'];

for (const name of ALWAYS_INSIDE) {
  test(`${name}: a reply starts inside the span whatever the prompt ended with`, () => {
    for (const prompt of [CLOSED_PROMPT, DISABLED_PROMPT, undefined]) {
      assert.deepEqual(split(name, 'Thought.</think>Answer.', prompt), { reasoning: 'Thought.', content: 'Answer.' }, String(prompt));
    }
  });
}

for (const name of FROM_PROMPT) {
  test(`${name}: a reply starts inside only when the rendered prompt ends inside <think>`, () => {
    const inside = { reasoning: 'Thought.', content: 'Answer.' };
    assert.deepEqual(split(name, 'Thought.</think>Answer.', `${CLOSED_PROMPT}<think>`), inside);
    assert.deepEqual(split(name, 'Thought.</think>Answer.', `${CLOSED_PROMPT}<think>\n \n`), inside, 'trailing whitespace ignored');
    const outside = { reasoning: '', content: 'Thought.Answer.' };
    assert.deepEqual(split(name, 'Thought.</think>Answer.', CLOSED_PROMPT), outside);
    assert.deepEqual(split(name, 'Thought.</think>Answer.', DISABLED_PROMPT), outside, 'an empty closed span (thinking off) is closed');
    assert.deepEqual(split(name, 'Thought.</think>Answer.', undefined), outside, 'no rendered prompt (token ids in)');
    assert.deepEqual(split(name, 'Plain answer.', CLOSED_PROMPT), { reasoning: '', content: 'Plain answer.' });
    assert.deepEqual(split(name, '<think>Thought.</think>Answer.', CLOSED_PROMPT), inside);
  });
}

const THINK_FAMILIES = [...ALWAYS_INSIDE, ...FROM_PROMPT];

for (const name of THINK_FAMILIES) {
  test(`${name}: a tool call after the reasoning is answer text for the tool parser; one inside stays reasoning`, () => {
    const call = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>';
    assert.deepEqual(split(name, `<think>Plan: ${call}</think>\n${call}`, `${CLOSED_PROMPT}<think>`), {
      reasoning: `Plan: ${call}`,
      content: `\n${call}`,
    });
  });
}

test('kimi starts inside when the prompt ends with its own opener', () => {
  assert.deepEqual(split('kimi', '想。◁/think▷好。', '<|im_assistant|>assistant<|im_middle|>◁think▷'), { reasoning: '想。', content: '好。' });
  assert.deepEqual(split('kimi', '想。◁/think▷好。', CLOSED_PROMPT), { reasoning: '', content: '想。好。' });
});

test('gpt_oss and granite: the markup decides, never the prompt', () => {
  assert.deepEqual(split('gpt_oss', 'Just text.', `${CLOSED_PROMPT}<think>`), { reasoning: '', content: 'Just text.' });
  assert.deepEqual(split('granite', 'Just text.', `${CLOSED_PROMPT}<think>`), { reasoning: '', content: 'Just text.' });
});

interface OffCase {
  name: ReasoningParserName;
  args: Record<string, unknown> | null;
  off: boolean;
  /** What the reply reads as while off (default: the text unchanged). */
  offContent?: string;
}

// Which thinking controls turn a family's parsing off (its text then passes through as answer).
const OFF_RULES: OffCase[] = [
  { name: 'deepseek_r1', args: null, off: false },
  { name: 'deepseek_r1', args: { thinking: false, enable_thinking: false }, off: true },
  { name: 'deepseek_r1', args: { thinking_mode: 'chat' }, off: true },
  { name: 'deepseek_r1', args: { thinking: true, thinking_mode: 'chat' }, off: false },
  { name: 'deepseek_v3', args: null, off: true },
  { name: 'deepseek_v3_1', args: { thinking: true }, off: false },
  { name: 'deepseek_v3_1', args: { thinking_mode: 'thinking' }, off: false },
  { name: 'deepseek_v3_2', args: { enable_thinking: false }, off: true },
  { name: 'deepseek_v4', args: { thinking_mode: 'chat' }, off: true },
  { name: 'minimax_m2', args: { thinking: false }, off: true },
  { name: 'kimi_k25', args: { thinking: false }, off: true },
  { name: 'kimi_k25', args: { enable_thinking: false }, off: false },
  { name: 'nemotron_nano', args: { force_nonempty_content: true }, off: true, offContent: 'Thought.</think>Answer.' },
  { name: 'nemotron3', args: { enable_thinking: false }, off: true, offContent: 'Thought.</think>Answer.' },
  { name: 'step3', args: { thinking: false, enable_thinking: false }, off: false },
  { name: 'minimax_append_think', args: { thinking: false, enable_thinking: false }, off: false },
  // Qwen3 and the other prompt-started families are never turned off: with thinking off their
  // template closes the span in the prompt, so the reply starts outside anyway.
  { name: 'qwen3', args: { thinking: false, enable_thinking: false, thinking_mode: 'disabled' }, off: false },
];

for (const c of OFF_RULES) {
  test(`${c.name} with ${JSON.stringify(c.args)}: reasoning ${c.off ? 'off' : 'parsed'}`, () => {
    const text = '<think>Thought.</think>Answer.';
    const got = split(c.name, text, CLOSED_PROMPT, c.args);
    if (c.off) assert.deepEqual(got, { reasoning: '', content: c.offContent ?? text });
    else assert.equal(got.reasoning, 'Thought.');
  });
}

test('nemotron with thinking off: a <think> the model opens with anyway is dropped, however cut', () => {
  const make = reasoningFor('nemotron_nano', { chat_template_args: { enable_thinking: false } }, CLOSED_PROMPT)!;
  assertEveryCutting(make, '<think>Paris.', { reasoning: '', content: 'Paris.' });
  assertEveryCutting(make, 'Paris <think>', { reasoning: '', content: 'Paris <think>' });
  assertEveryCutting(make, '<thi', { reasoning: '', content: '<thi' });
});
