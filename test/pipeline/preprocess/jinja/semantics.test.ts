// Corner cases of the reference's semantics the compiled renderer reproduces, each checked
// against @huggingface/jinja itself; and TemplateProgram's fallback to the reference.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Template } from '@huggingface/jinja';
import { type AstNode, compileProgram } from '../../../../src/pipeline/preprocess/jinja/compile.js';
import { TemplateProgram } from '../../../../src/pipeline/preprocess/jinja/index.js';

const CONTEXT = {
  messages: [
    { role: 'system', content: 'Sys' },
    { role: 'user', content: 'Hi there, friend' },
    { role: 'assistant', content: 'Hello', tool_calls: [{ function: { name: 'f', arguments: { a: 1, b: [true, null] } } }] },
  ],
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } }],
  n: 7,
  f: 2.5,
  text: 'a,b,,c',
  empty: [],
  dict: { z: 1, a: 'x', '10': 'ten' },
};

const TEMPLATES: Record<string, string> = {
  'loop variables': '{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem.role if loop.previtem is defined }};{% endfor %}',
  'break drops the partial iteration': '{% for m in messages %}[{{ m.role }}{% if loop.index == 2 %}{% break %}{% endif %}]{% endfor %}',
  'continue drops the partial iteration': '{% for m in messages %}<{{ m.role }}{% if loop.first %}{% continue %}{% endif %}>{% endfor %}',
  'for else, for if': '{% for x in empty %}x{% else %}none{% endfor %}|{% for m in messages if m.role != "system" %}{{ m.role }}{% endfor %}',
  'set in a loop stays in the loop': '{% set x = 1 %}{% for m in messages %}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}',
  'namespace across a loop': '{% set ns = namespace(count=0, last=none) %}{% for m in messages %}{% set ns.count = ns.count + 1 %}{% set ns.last = m.role %}{% endfor %}{{ ns.count }}{{ ns.last }}{{ ns }}',
  'slices': '{{ messages[::-1][0].role }}{{ messages[1:][0].role }}{{ text[::-1] }}{{ text[1:-1] }}{{ text[-2:] }}{{ messages[-1:] | length }}{{ text[5:1:-1] }}',
  'string methods': "{{ text.split(',') | length }}{{ text.split(',', 1) | tojson }}{{ '  a  b '.split() | tojson }}{{ ' a b c'.split(none, 1) | tojson }}{{ text.replace(',', ';', 2) }}{{ ' x '.strip() }}{{ 'ab'.upper() }}{{ 'hello world'.title() }}{{ text.startswith(('x', 'a')) }}{{ text.endswith('c') }}",
  'tojson forms': '{{ messages[2] | tojson }}{{ tools | tojson(indent=2) }}{{ dict | tojson(sort_keys=true) }}{{ "é" | tojson(ensure_ascii=true) }}{{ dict | tojson(separators=(",", ":")) }}',
  'printing values': '{{ messages[2].tool_calls }}{{ dict }}{{ n }}{{ f }}{{ true }}{{ none }}{{ undefined_name }}{{ [1, "a", none] }}',
  'arithmetic and comparison': '{{ n + 1 }}{{ n - 10 }}{{ n * 3 }}{{ n % 4 }}{{ n // 2 }}{{ n > 3 }}{{ f < 3 }}{{ "a" ~ n ~ true }}{{ "x" + n|string }}{{ -n }}',
  'membership': '{{ "a" in "cat" }}{{ "role" in messages[0] }}{{ "x" not in ["x", "y"] }}{{ 7 in [1, 7] }}{{ "q" in undefined_name }}',
  'equality quirks': '{{ messages[0] == "" }}{{ messages[0] == messages[0] }}{{ 1 == "1" }}{{ none == undefined_name }}{{ true == 1 }}',
  'filters': "{{ messages | map(attribute='role') | join(', ') }}{{ messages | selectattr('role', 'equalto', 'user') | list | length }}{{ messages | rejectattr('tool_calls') | list | length }}{{ 'ab' | upper }}{{ ' x ' | trim }}{{ 'a\nb\n\nc' | indent }}{{ 'a\nb' | indent(2, true) }}{{ [3, 1, 2] | sort | tojson }}{{ dict | items | tojson }}{{ dict | length }}{{ '42' | int + 1 }}{{ undefined_name | default('d') }}{{ '' | default('e', true) }}{{ ['b', 'a', 'b'] | unique | join }}{{ messages | last | tojson }}",
  'tests': '{{ n is integer }}{{ f is number }}{{ dict is mapping }}{{ text is string }}{{ empty is iterable }}{{ none is none }}{{ undefined_name is defined }}{{ n is odd }}{{ "ab" is lower }}',
  'macros with defaults and keywords': "{% macro m(a, b='B', c=none) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }}{{ m(1, 2) }}{{ m(1, c=3) }}{{ m(a='x') }}",
  'macros see the caller scope': '{% macro show() %}{{ who }}{% endmacro %}{% for who in ["p", "q"] %}{{ show() }}{% endfor %}',
  'dict iteration and methods': '{% for k in dict %}{{ k }}{% endfor %}{% for k, v in dict.items() %}{{ k }}={{ v }};{% endfor %}{{ dict.get("z") }}{{ dict.get("nope", "dflt") }}{{ dict.get("nope") }}{{ dict.keys() | tojson }}',
  'set forms': '{% set a, b = [1, 2] %}{{ a }}{{ b }}{% set block %}in {{ a }}{% endset %}{{ block }}',
  'filter block': '{% filter upper %}shout {{ messages[0].content }}{% endfilter %}',
  'ternary and select': '{{ "y" if n > 1 else "n" }}{{ "z" if false }}{{ (messages | length) > 2 and "long" or "short" }}',
  'string concatenation with a list': '{{ "parts: " + messages[2].tool_calls[0].function.arguments.b }}',
};

describe('compiled renderer semantics', () => {
  for (const [name, source] of Object.entries(TEMPLATES)) {
    it(name, () => {
      const reference = new Template(source);
      const expected = reference.render(structuredClone(CONTEXT));
      const actual = compileProgram(reference.parsed as unknown as AstNode)(structuredClone(CONTEXT));
      assert.equal(actual, expected);
    });
  }
});

describe('TemplateProgram', () => {
  it('renders constructs left to the reference through the reference', () => {
    const source = '{% macro list() %}[{{ caller() }}]{% endmacro %}{% call list() %}inside{% endcall %}';
    assert.equal(new TemplateProgram(source).render({}), new Template(source).render({}));
  });

  it("gives the reference's error for raise_exception and failing operations", () => {
    for (const source of ["{{ raise_exception('Only user and assistant roles are supported!') }}", '{{ none + 1 }}', '{% for x in 5 %}{% endfor %}']) {
      const expected = (() => {
        try {
          new Template(source).render({});
        } catch (err) {
          return (err as Error).message;
        }
        return null;
      })();
      assert.ok(expected !== null);
      assert.throws(() => new TemplateProgram(source).render({}), { message: expected });
    }
  });

  it('throws the reference parse error for a template that does not parse', () => {
    assert.throws(() => new TemplateProgram('{% if %}'));
  });

  it('leaves a context key that shadows a global to the reference', () => {
    const source = '{{ range }}';
    assert.throws(() => new Template(source).render({ range: 1 }));
    assert.throws(() => new TemplateProgram(source).render({ range: 1 }));
  });
});
