// tool_choice carried to the engine as guided decoding, as upstream's tool_choice schema: a named
// function's parameters, or for `required` an array of {name, parameters} alternatives with every
// tool's $defs at the root; auto, none and no tool_choice set nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor } from '../../../src/pipeline/preprocess/index.js';
import { ValidationError } from '../../../src/protocols/index.js';

const card = loadDefaultModelCard();
const pre = new Preprocessor(card, new HfTokenizer(card.tokenizerJsonPath));

const weather = { type: 'object', properties: { location: { $ref: '#/$defs/Place' } }, $defs: { Place: { type: 'string' } } };
const time = { type: 'object', properties: { zone: { type: 'string' } } };
const tools = [
  { type: 'function', function: { name: 'get_weather', parameters: weather } },
  { type: 'function', function: { name: 'get_time', parameters: time } },
  { type: 'function', function: { name: 'ping' } },
];

async function guided(extra: Record<string, unknown>): Promise<Record<string, unknown> | null | undefined> {
  const request = pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'hi' }], tools, ...extra });
  return (await pre.preprocessChat(request)).request.sampling_options.guided_decoding;
}

describe('tool_choice as guided decoding', () => {
  it('a named function: its parameters schema, nothing else set', async () => {
    const block = await guided({ tool_choice: { type: 'function', function: { name: 'get_time' } } });
    assert.deepEqual(block, { json: time, regex: null, choice: null, grammar: null, structural_tag: null, backend: null, whitespace_pattern: null });
  });

  it('a named function without parameters: an empty object schema', async () => {
    const block = await guided({ tool_choice: { type: 'function', function: { name: 'ping' } } });
    assert.deepEqual(block?.json, { type: 'object', properties: {} });
  });

  it('required: an array of at least one call, one alternative per tool, $defs hoisted to the root', async () => {
    const block = await guided({ tool_choice: 'required' });
    const { $defs: _defs, ...weatherParameters } = weather;
    assert.deepEqual(block?.json, {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        anyOf: [
          { properties: { name: { type: 'string', enum: ['get_weather'] }, parameters: weatherParameters }, required: ['name', 'parameters'] },
          { properties: { name: { type: 'string', enum: ['get_time'] }, parameters: time }, required: ['name', 'parameters'] },
          { properties: { name: { type: 'string', enum: ['ping'] }, parameters: { type: 'object', properties: {} } }, required: ['name', 'parameters'] },
        ],
      },
      $defs: { Place: { type: 'string' } },
    });
  });

  it('tool_choice wins over response_format', async () => {
    const block = await guided({ tool_choice: 'required', response_format: { type: 'json_object' } });
    assert.equal((block?.json as { type: string }).type, 'array');
  });

  it('auto, none or no tool_choice: no guided decoding', async () => {
    for (const choice of ['auto', 'none', undefined]) assert.equal(await guided({ tool_choice: choice }), null);
  });

  it('two tools defining one $defs name differently is a 400', async () => {
    const clash = [tools[0], { type: 'function', function: { name: 'other', parameters: { type: 'object', $defs: { Place: { type: 'number' } } } } }];
    await assert.rejects(
      guided({ tools: clash, tool_choice: 'required' }),
      (err: unknown) => err instanceof ValidationError && err.httpStatus === 400 && /duplicate \$defs entry `Place` has conflicting schemas/.test(err.message),
    );
  });
});
