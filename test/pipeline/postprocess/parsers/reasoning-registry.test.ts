// Every reasoning parser name on its model family's real output: the same split whether the text
// comes in one push, one character at a time, or cut anywhere (markers split across pushes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REASONING_PARSERS } from '../../../../src/pipeline/postprocess/index.js';
import { REASONING_PARSER_NAMES, type ReasoningParserName } from '../../../../src/protocols/index.js';
import { assertEveryCutting } from './support.js';

interface Case {
  what: string;
  text: string;
  reasoning: string;
  content: string;
}

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
    { what: 'template opened the span (Qwen3-2507 thinking)', text: 'Short thought.\n</think>\n\nAnswer.', reasoning: 'Short thought.\n', content: '\n\nAnswer.' },
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
    { what: 'template opened the span', text: 'Quick check.[/THINK]Yes.', reasoning: 'Quick check.', content: 'Yes.' },
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
};

test('the registry has a parser for every name and nothing else', () => {
  assert.deepEqual(Object.keys(REASONING_PARSERS).sort(), [...REASONING_PARSER_NAMES].sort());
});

for (const name of REASONING_PARSER_NAMES) {
  for (const c of CASES[name]) {
    test(`${name}: ${c.what}, the same split however the text is cut`, () => {
      const make = () => REASONING_PARSERS[name]({ thinkingEnabled: true });
      assertEveryCutting(make, c.text, { reasoning: c.reasoning, content: c.content });
    });
  }

  test(`${name}: thinking disabled passes every text through as content`, () => {
    const make = () => REASONING_PARSERS[name]({ thinkingEnabled: false });
    for (const c of CASES[name]) assertEveryCutting(make, c.text, { reasoning: '', content: c.text });
  });
}
