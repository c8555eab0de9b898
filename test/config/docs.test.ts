import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OPTIONS, renderConfigurationDocs } from '../../src/config/index.js';

test('docs/configuration.md matches the option table (regenerate: node dist/src/config/render-docs.js)', () => {
  const onDisk = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
  assert.equal(onDisk, renderConfigurationDocs());
});

test('the docs mention every option and env var', () => {
  const docs = renderConfigurationDocs();
  for (const spec of OPTIONS) {
    assert.ok(docs.includes(spec.env), spec.env);
    if (spec.flag !== undefined) assert.ok(docs.includes(`--${spec.flag}`), spec.flag);
  }
});

const camel = (words: string) => words.toLowerCase().replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());

test('Config keys follow the naming rule and are unique, as are flags and env vars', () => {
  for (const spec of OPTIONS) {
    const expected = spec.flag !== undefined ? camel(spec.flag) : camel(spec.env.replace(/^DYN_/, ''));
    assert.equal(spec.key, expected, `${spec.flag ?? spec.env}`);
  }
  const unique = (values: (string | undefined)[]) => new Set(values.filter((v) => v !== undefined)).size === values.filter((v) => v !== undefined).length;
  assert.ok(unique(OPTIONS.map((spec) => spec.key)));
  assert.ok(unique(OPTIONS.map((spec) => spec.flag)));
  assert.ok(unique(OPTIONS.map((spec) => spec.env)));
});

test('every default satisfies its own option', () => {
  for (const spec of OPTIONS) {
    const values = [spec.default, ...Object.values(spec.commandDefaults ?? {})];
    for (const value of values) {
      if (value === undefined) continue;
      if (spec.type === 'enum') assert.ok(Object.hasOwn(spec.choices, value as string), spec.key);
      if (spec.type === 'int' || spec.type === 'float') {
        assert.ok(spec.min === undefined || (value as number) >= spec.min, spec.key);
        assert.ok(spec.max === undefined || (value as number) <= spec.max, spec.key);
      }
    }
  }
});
