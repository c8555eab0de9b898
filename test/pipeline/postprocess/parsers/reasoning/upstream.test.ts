// Upstream's streaming cases (lib/parsers/src/reasoning/*.rs), push by push. Where upstream lets a
// lone `<` through at once, these parsers hold it for one push: a one-character push must still be
// able to begin a marker. The text is the same once the next push settles it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reasoningFor } from '../../../../../src/pipeline/postprocess/index.js';
import type { ReasoningParserName } from '../../../../../src/protocols/index.js';
import { pushAll } from '../support.js';

/** [reasoning, content] released by one push; the last entry is what finish() releases. */
type Step = [string, string];

interface Case {
  parser: ReasoningParserName;
  what: string;
  pieces: string[];
  steps: Step[];
}

const done: Step = ['', ''];

const CASES: Case[] = [
  // base_parser.rs, `<think>` spans
  { parser: 'basic', what: 'a partial start marker is held', pieces: ['<thi'], steps: [done, ['', '<thi']] },
  { parser: 'basic', what: 'complete span in one push', pieces: ['<think>with reasoning</think> and more text.'], steps: [['with reasoning', ' and more text.'], done] },
  { parser: 'basic', what: 'no reasoning', pieces: ['This is a test without reasoning.'], steps: [['', 'This is a test without reasoning.'], done] },
  { parser: 'deepseek_r1', what: 'forced span, no end marker', pieces: ['<think>with reasoning'], steps: [['with reasoning', ''], done] },
  {
    parser: 'basic',
    what: 'several spans over pushes',
    pieces: ['<think>first reasoning</think> middle', ' <think>second reasoning</think> end'],
    steps: [['first reasoning', ' middle'], ['second reasoning', '  end'], done],
  },
  {
    parser: 'basic',
    what: 'start marker split across pushes',
    pieces: ['<th', 'ink>reasoning content</think> normal text'],
    steps: [done, ['reasoning content', ' normal text'], done],
  },
  {
    parser: 'basic',
    what: 'end marker split across pushes',
    pieces: ['<think>reasoning', '</th', 'ink> normal'],
    steps: [['reasoning', ''], done, ['', ' normal'], done],
  },
  {
    parser: 'basic',
    what: 'reasoning streams as it comes',
    pieces: ['<think>reasoning ', 'content ', 'more</think> normal'],
    steps: [['reasoning ', ''], ['content ', ''], ['more', ' normal'], done],
  },
  {
    parser: 'basic',
    what: 'a stray end marker between spans is dropped',
    pieces: ['<think>checking the weather</think>It is sunny.</think> Have a nice day.<think>double-checking</think> Confirmed.'],
    steps: [['checking the weatherdouble-checking', 'It is sunny. Have a nice day. Confirmed.'], done],
  },
  {
    parser: 'basic',
    what: 'state resets after a span',
    pieces: ['<think>reasoning</think> normal', ' more normal text', ' <think>new reasoning</think> final'],
    steps: [['reasoning', ' normal'], ['', ' more normal text'], ['new reasoning', '  final'], done],
  },
  {
    parser: 'basic',
    what: 'a lone `<` after reasoning reaches content with the next push',
    pieces: ['<think>reasoning content</think>', '<', 'invoke name="get_weather">'],
    steps: [['reasoning content', ''], done, ['', '<invoke name="get_weather">'], done],
  },
  {
    parser: 'basic',
    what: 'tool-call markup after reasoning passes through',
    pieces: ['<think>let me check', '</think>', '<minimax:tool_call>', '\n'],
    steps: [['let me check', ''], done, ['', '<minimax:tool_call>'], ['', '\n'], done],
  },
  {
    parser: 'basic',
    what: 'end and start markers in one push',
    pieces: ['<think>first', '</think> middle <think>second', ' more</think> end'],
    steps: [['first', ''], ['second', ' middle '], [' more', ' end'], done],
  },
  {
    parser: 'deepseek_r1',
    what: 'forced span, then an explicit one',
    pieces: ['initial reasoning', '</think> answer', '<think>second thought</think> done'],
    steps: [['initial reasoning', ''], ['', ' answer'], ['second thought', ' done'], done],
  },
  {
    parser: 'basic',
    what: 'partial start marker between spans',
    pieces: ['<think>first</think> normal', '<th', 'ink>second</think> end'],
    steps: [['first', ' normal'], done, ['second', ' end'], done],
  },
  {
    parser: 'basic',
    what: 'a lone `<` between spans',
    pieces: ['<think>thought</think>', '<', 'tool_call>', '<think>more thought</think> done'],
    steps: [['thought', ''], done, ['', '<tool_call>'], ['more thought', ' done'], done],
  },
  { parser: 'basic', what: 'two spans in one push', pieces: ['<think>A</think> mid <think>B</think> end', ''], steps: [['AB', ' mid  end'], done, done] },
  {
    parser: 'deepseek_r1',
    what: 'forced then explicit spans',
    pieces: ['initial reasoning</think> normal1 ', '<think>second block</think> normal2'],
    steps: [['initial reasoning', ' normal1 '], ['second block', ' normal2'], done],
  },
  {
    parser: 'glm45',
    what: 'GLM-5 burst: spans and tool calls in one push',
    pieces: ['<think>T1</think><tool_call>A</tool_call><think>T2</think><tool_call>B</tool_call>', ''],
    steps: [['T1T2', '<tool_call>A</tool_call><tool_call>B</tool_call>'], done, done],
  },
  {
    parser: 'glm45',
    what: 'GLM-5 spans and tool calls push by push',
    pieces: ['<think>T1</think>', '<tool_call>A</tool_call>', '<think>T2</think>', '<tool_call>B</tool_call>'],
    steps: [['T1', ''], ['', '<tool_call>A</tool_call>'], ['T2', ''], ['', '<tool_call>B</tool_call>'], done],
  },
  { parser: 'basic', what: 'empty pushes change nothing', pieces: ['', '<think>content', '', '</think>', ''], steps: [done, ['content', ''], done, done, done, done] },
  {
    parser: 'basic',
    what: 'partial start marker after text',
    pieces: ['Hello world <th', 'ink>reasoning content</think> answer'],
    steps: [['', 'Hello world '], ['reasoning content', ' answer'], done],
  },
  { parser: 'basic', what: 'start marker cut mid-word', pieces: ['The answer is <thi', 'nk>let me think</think>42'], steps: [['', 'The answer is '], ['let me think', '42'], done] },
  {
    parser: 'basic',
    what: 'partial end marker after reasoning text',
    pieces: ['<think>reasoning content and </th', 'ink> normal text'],
    steps: [['reasoning content and ', ''], ['', ' normal text'], done],
  },
  {
    parser: 'basic',
    what: 'second span begun at a push boundary',
    pieces: ['<think>thought1</think>answer1<thi', 'nk>thought2</think>answer2'],
    steps: [['thought1', 'answer1'], ['thought2', 'answer2'], done],
  },
  { parser: 'basic', what: '`<thesis` is not a marker', pieces: ['value <thesis on', ' AI> is great'], steps: [['', 'value <thesis on'], ['', ' AI> is great'], done] },
  {
    parser: 'basic',
    what: '`</thing>` is not an end marker',
    pieces: ['<think>abc</th', 'ing>def', '</think>done'],
    steps: [['abc', ''], ['</thing>def', ''], ['', 'done'], done],
  },
  // mod.rs, the forced `<think>` span (kimi_k25 there, deepseek_r1 here)
  { parser: 'deepseek_r1', what: 'no tags: all reasoning', pieces: ['no think tags here'], steps: [['no think tags here', ''], done] },
  { parser: 'deepseek_r1', what: 'empty span (instant mode)', pieces: ['<think></think>Hello from instant mode!'], steps: [['', 'Hello from instant mode!'], done] },
  {
    parser: 'deepseek_r1',
    what: 'a written start marker cut across pushes is dropped',
    pieces: ['<thi', 'nk>reasoning here', '</think>Hello!'],
    steps: [done, ['reasoning here', ''], ['', 'Hello!'], done],
  },
  {
    parser: 'deepseek_r1',
    what: 'token by token',
    pieces: ['<think>', 'I need to', ' think about', ' this carefully.', '</think>', 'Bonjour', '!'],
    steps: [done, ['I need to', ''], [' think about', ''], [' this carefully.', ''], done, ['', 'Bonjour'], ['', '!'], done],
  },
  { parser: 'kimi', what: 'Kimi does not parse `<think>`', pieces: ['<think>reasoning</think>answer'], steps: [['', '<think>reasoning</think>answer'], done] },
  // minimax_append_think_parser.rs
  { parser: 'minimax_append_think', what: 'no end marker', pieces: ['reasoning content here'], steps: [['reasoning content here', ''], done] },
  { parser: 'minimax_append_think', what: 'with end marker', pieces: ['reasoning content</think>normal response'], steps: [['reasoning content', 'normal response'], done] },
  {
    parser: 'minimax_append_think',
    what: 'basic flow',
    pieces: ['I need to ', 'check the weather', '</think>The weather is sunny.'],
    steps: [['I need to ', ''], ['check the weather', ''], ['', 'The weather is sunny.'], done],
  },
  {
    parser: 'minimax_append_think',
    what: 'end marker split across pushes',
    pieces: ['reasoning', '</thi', 'nk>normal text'],
    steps: [['reasoning', ''], done, ['', 'normal text'], done],
  },
  {
    parser: 'minimax_append_think',
    what: 'tool call right after reasoning',
    pieces: ['let me call a tool', '</think><minimax:tool_call><invoke name="get_weather">'],
    steps: [['let me call a tool', ''], ['', '<minimax:tool_call><invoke name="get_weather">'], done],
  },
  // granite_parser.rs
  {
    parser: 'granite',
    what: 'thought process and response',
    pieces: ["Here's my thought process: I need to think about this. Here's my response: The answer is 42."],
    steps: [[' I need to think about this. ', ' The answer is 42.'], done],
  },
  {
    parser: 'granite',
    what: 'the "Here is" markers',
    pieces: ['Here is my thought process: Different thinking here. Here is my response: Final answer.'],
    steps: [[' Different thinking here. ', ' Final answer.'], done],
  },
  {
    parser: 'granite',
    what: 'partial start marker',
    pieces: ["Here's", ' my thought process: This is reasoning'],
    steps: [done, [' This is reasoning', ''], done],
  },
  {
    parser: 'granite',
    what: 'partial end marker',
    pieces: ["Here's my thought process: Thinking... ", 'Here', "'s my", ' response: Done!'],
    steps: [[' Thinking... ', ''], done, done, ['', ' Done!'], done],
  },
  {
    parser: 'granite',
    what: 'no end marker',
    pieces: ["Here's my thought process: This is reasoning content", ' and more thinking'],
    steps: [[' This is reasoning content', ''], [' and more thinking', ''], done],
  },
  { parser: 'granite', what: 'empty span', pieces: ["Here's my thought process:Here's my response: Direct answer."], steps: [['', ' Direct answer.'], done] },
  {
    parser: 'granite',
    what: 'whitespace kept',
    pieces: ["Here's my thought process:   \n  Indented reasoning  \n  Here's my response:   Final result  "],
    steps: [['   \n  Indented reasoning  \n  ', '   Final result  '], done],
  },
  {
    parser: 'granite',
    what: 'markers are case sensitive',
    pieces: ["here's my thought process: lowercase. here's my response: answer."],
    steps: [['', "here's my thought process: lowercase. here's my response: answer."], done],
  },
  {
    parser: 'granite',
    what: 'a start marker inside the span is reasoning text',
    pieces: ["Here's my thought process: I think Here's my thought process: is confusing. Here's my response: Done."],
    steps: [[" I think Here's my thought process: is confusing. ", ' Done.'], done],
  },
  {
    parser: 'granite',
    what: 'a second end marker is answer text',
    pieces: ["Here's my thought process: Thinking about Here's my response: in the middle. Here's my response: Real end."],
    steps: [[' Thinking about ', " in the middle. Here's my response: Real end."], done],
  },
  // gpt_oss_parser.rs
  { parser: 'gpt_oss', what: 'final channel without analysis', pieces: ['<|channel|>final<|message|>answer'], steps: [['', 'answer'], done] },
  {
    parser: 'gpt_oss',
    what: 'analysis messages joined by a newline',
    pieces: ['<|channel|>analysis<|message|>first<|end|><|start|>assistant<|channel|>analysis<|message|>second<|end|><|start|>assistant<|channel|>final<|message|>done'],
    steps: [['first\nsecond', 'done'], done],
  },
  {
    parser: 'gpt_oss',
    what: 'analysis messages over pushes',
    pieces: [
      '<|channel|>analysis<|message|>first<|end|><|start|>assistant',
      '<|channel|>analysis<|message|>second<|end|><|start|>assistant',
      '<|channel|>final<|message|>done',
    ],
    steps: [['first', ''], ['\nsecond', ''], ['', 'done'], done],
  },
  {
    parser: 'gpt_oss',
    what: 'chunks of real output',
    pieces: [
      '<|channel|>',
      'analysis<|message|>The user asks a simple factual question: capital of Brazil.',
      ' The answer is Brasília. No additional explanation needed.',
      '<|end|><|start|>assistant<|channel|>final<|message|>',
      'The capital of Brazil is Brasília.',
    ],
    steps: [
      done,
      ['The user asks a simple factual question: capital of Brazil.', ''],
      [' The answer is Brasília. No additional explanation needed.', ''],
      done,
      ['', 'The capital of Brazil is Brasília.'],
      done,
    ],
  },
  {
    parser: 'gpt_oss',
    what: 'end marker split across pushes',
    pieces: ['<|channel|>analysis<|message|>thinking<|e', 'nd|><|start|>assistant<|channel|>final<|message|>answer'],
    steps: [['thinking', ''], ['', 'answer'], done],
  },
  {
    parser: 'gpt_oss',
    what: 'finish releases a held partial marker into reasoning',
    pieces: ['<|channel|>analysis<|message|>thinking<|e'],
    steps: [['thinking', ''], ['<|e', '']],
  },
  { parser: 'gpt_oss', what: 'finish releases a held partial marker into content', pieces: ['<|channel|>final<|message|>answer<|e'], steps: [['', 'answer'], ['', '<|e']] },
  {
    parser: 'gpt_oss',
    what: 'a header without a body and a stray terminator are dropped, text kept',
    pieces: ['<|start|>assistant<|end|>', 'plain<|end|>', '<|channel|>final<|message|>ok'],
    steps: [done, ['', 'plain'], ['', 'ok'], done],
  },
];

for (const c of CASES) {
  test(`${c.parser}: ${c.what}`, () => {
    const parser = reasoningFor(c.parser, { chat_template_args: null })!();
    const steps = pushAll(parser, c.pieces).map((s): Step => [s.reasoning, s.content]);
    assert.deepEqual(steps, c.steps);
    assert.deepEqual(parser.finish(), { reasoning: '', content: '' }, 'a second finish releases nothing');
  });
}
