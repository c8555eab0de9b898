// MiniMax-M3: namespaced XML, one tag per parameter, values typed by the schema; cases after
// upstream's minimax_m3 parser, in our own data.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, builtCall, counted } from '../support.js';

const m3 = TOOL_CALL_PARSERS.minimax_m3;
const T = ']<]minimax[>[';
const tag = (name: string, value: string): string => `${T}<${name}>${value}${T}</${name}>`;
const invoke = (name: string, ...parameters: string[]): string => `${T}<invoke name="${name}">${parameters.join('')}${T}</invoke>`;
const block = (...invokes: string[]): string => `${T}<tool_call>\n${invokes.join('\n')}\n${T}</tool_call>`;

const ROUTE = {
  name: 'route',
  parameters: {
    type: 'object',
    properties: {
      from: { type: 'string' },
      stops: { type: 'integer' },
      speed: { type: 'number' },
      toll: { type: 'boolean' },
      via: { type: 'array', items: { type: 'string' } },
      legs: { type: 'array', items: { $ref: '#/$defs/Leg' } },
      avoid: { type: ['string', 'null'] },
      label: { type: 'string' },
      extra: { type: 'object' },
    },
    $defs: { Leg: { type: 'object', properties: { km: { type: 'number' }, city: { type: 'string' } } } },
  },
};

describe('minimax_m3', () => {
  it('reads a call between text, values typed by the schema', () => {
    const text = `Routing now.\n${block(invoke('route', tag('from', 'Bergen'), tag('stops', '2'), tag('speed', '80.5'), tag('toll', 'false'), tag('avoid', 'null'), tag('label', 'null')))}\nOn my way.`;
    assertToolParse(
      m3,
      text,
      [{ content: 'Routing now.\n' }, builtCall(1, 'route', { from: 'Bergen', stops: 2, speed: 80.5, toll: false, avoid: null, label: 'null' }), { content: '\nOn my way.' }],
      { tools: [ROUTE] },
    );
  });

  it('reads nested values: <item> lists, objects through $ref, repeated tags, JSON text', () => {
    const via = `${T}<item>Voss${T}</item>\n${T}<item>Geilo${T}</item>`;
    const legs = `${T}<item>${tag('km', '106')}${tag('city', 'Voss')}${T}</item>`;
    const text = block(invoke('route', tag('via', via), tag('legs', legs), tag('extra', '{"night": true}'), tag('note', 'a'), tag('note', 'b')));
    assertToolParse(
      m3,
      text,
      [builtCall(1, 'route', { via: ['Voss', 'Geilo'], legs: [{ km: 106, city: 'Voss' }], extra: { night: true }, note: ['a', 'b'] })],
      { tools: [ROUTE] },
    );
  });

  it('without a schema values stay text, entities decoded; text beside child tags is $text', () => {
    const text = block(invoke('f', tag('n', '3'), tag('q', 'a &lt; b &amp; c'), tag('o', `top${tag('k', 'v')}`)));
    assertToolParse(m3, text, [builtCall(1, 'f', { n: '3', q: 'a < b & c', o: { k: 'v', $text: 'top' } })]);
  });

  it('reads several invokes in a block and several blocks; junk inside a block is dropped', () => {
    const text = `${block(invoke('a', tag('x', '1')), 'junk', invoke('b'))} and ${block(invoke('c'))}`;
    assertToolParse(m3, text, [builtCall(1, 'a', { x: '1' }), builtCall(2, 'b', {}), { content: ' and ' }, builtCall(3, 'c', {})]);
  });

  it("reads an invoke written without its block, and names quoted with ' or not at all", () => {
    const text = `Go: ${T}<invoke name='ping'>${tag('host', 'example.org')}${T}</invoke> then ${T}<invoke name=pong>${T}</invoke>.`;
    assertToolParse(m3, text, [{ content: 'Go: ' }, builtCall(1, 'ping', { host: 'example.org' }), { content: ' then ' }, builtCall(2, 'pong', {}), { content: '.' }]);
  });

  it('an invoke without a name is no call', () => {
    assertToolParse(m3, block(`${T}<invoke>${T}</invoke>`, invoke('ok')), [builtCall(1, 'ok', {})]);
  });

  it('a block the stream cuts off keeps the calls closed in it and drops the rest', () => {
    assertToolParse(m3, `x${T}<tool_call>\n${invoke('a')}\n${T}<invoke name="b">${T}<k>v`, [{ content: 'x' }, builtCall(1, 'a', {})]);
    assertToolParse(m3, `y${T}<invoke name="c">${T}<k>`, [{ content: 'y' }]);
  });

  it('releases a call whole once its invoke closes', () => {
    const parser = counted(m3);
    assert.deepEqual(parser.push(`${T}<tool_call>${T}<invoke name="f">${T}<a>1`), []);
    assert.deepEqual(parser.push(`${T}</a>${T}</invoke>`), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'f' },
      { type: 'call_arguments', index: 0, fragment: '{"a":"1"}' },
      { type: 'call_end', index: 0 },
    ]);
    assert.deepEqual(parser.push(`${T}</tool_call>after`), [{ type: 'content', text: 'after' }]);
  });

  it('text that only looks like the namespace is text', () => {
    assertToolParse(m3, 'plain ]<]minimal answer ]<]mini', [{ content: 'plain ]<]minimal answer ]<]mini' }]);
  });

  it('is the parser of the alias minimax-m3', () => {
    assertToolParse(TOOL_CALL_PARSERS['minimax-m3'], block(invoke('f')), [builtCall(1, 'f', {})]);
  });
});
