// A worker's structural-tag flags → its card's runtime config, as upstream's workers resolve
// `--dyn-structural-tag [bool|JSON]` (`DYN_STRUCTURAL_TAG`) and the older spellings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Config } from '../../src/config/index.js';
import { publishedStructuralTag } from '../../src/launch/structural-tag-flags.js';
import { bridgeModelFromConfig } from '../../src/launch/index.js';
import { runConfig } from '../support/run-config.js';

function flags(args: string[], env: Record<string, string> = {}): Config {
  return runConfig(['mocker', ...args], env);
}

const DEFAULTS = {
  scope: 'always',
  schema: 'auto',
  allow_tool_calls_with_structured_output: false,
  exclude_special_tokens: null,
  reasoning_boundary: 'auto',
  tool_arguments_any_order: false,
};
const ON = { structural_tag_mode: 'on', structural_tag_scope: 'always', structural_tag_schema: 'auto', structural_tag: DEFAULTS };
const OFF = { structural_tag_mode: 'off' };

test('no flag: the worker kind decides (engine workers on, the mocker off)', () => {
  assert.deepEqual(publishedStructuralTag(flags([]), true), { runtimeConfig: ON, warnings: [] });
  assert.deepEqual(publishedStructuralTag(flags([]), false), { runtimeConfig: OFF, warnings: [] });
});

test('the flag alone, true or false, before another flag or last', () => {
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag']), false).runtimeConfig, ON);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', '--speedup-ratio', '2']), false).runtimeConfig, ON);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', 'true']), false).runtimeConfig, ON);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', 'false']), true).runtimeConfig, OFF);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag=off']), true).runtimeConfig, OFF);
  assert.deepEqual(publishedStructuralTag(flags([], { DYN_STRUCTURAL_TAG: 'false' }), true).runtimeConfig, OFF);
});

test('a JSON object: its fields over the defaults, from the flag or the environment', () => {
  const json = '{"scope": "auto", "schema": "strict", "tool_arguments_any_order": true}';
  const expected = {
    structural_tag_mode: 'on',
    structural_tag_scope: 'auto',
    structural_tag_schema: 'strict',
    structural_tag: { ...DEFAULTS, scope: 'auto', schema: 'strict', tool_arguments_any_order: true },
  };
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', json]), false).runtimeConfig, expected);
  assert.deepEqual(publishedStructuralTag(flags([], { DYN_STRUCTURAL_TAG: json }), false).runtimeConfig, expected);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', '{}']), false).runtimeConfig, ON);
});

test('a value that is not a boolean or a valid object is refused, naming the field', () => {
  const refused: [string, RegExp][] = [
    ['{', /--dyn-structural-tag must be true, false or a JSON object, got '\{'/],
    ['[]', /--dyn-structural-tag must be true, false or a JSON object, got '\[\]'/],
    ['{"a": }', /--dyn-structural-tag must be true, false or a JSON object, got '\{"a": \}'/],
    ['{"unknown": true}', /unknown field `unknown`/],
    ['{"scope": "sometimes"}', /field `scope` must be auto or always, got "sometimes"/],
    ['{"allow_tool_calls_with_structured_output": "yes"}', /must be a boolean, got "yes"/],
    ['maybe', /must be true, false or a JSON object/],
  ];
  for (const [value, message] of refused) assert.throws(() => publishedStructuralTag(flags(['--dyn-structural-tag', value]), true), message, value);
});

test('the older spellings keep working, each with a deprecation warning', () => {
  const legacy = publishedStructuralTag(flags(['--dyn-enable-structural-tag', '--dyn-structural-tag-scope', 'auto', '--dyn-structural-tag-schema', 'strict']), false);
  assert.deepEqual(legacy.runtimeConfig, {
    structural_tag_mode: 'on',
    structural_tag_scope: 'auto',
    structural_tag_schema: 'strict',
    structural_tag: { ...DEFAULTS, scope: 'auto', schema: 'strict' },
  });
  assert.deepEqual(legacy.warnings, [
    '--dyn-enable-structural-tag is deprecated; use --dyn-structural-tag',
    '--dyn-structural-tag-scope is deprecated; use --dyn-structural-tag',
    '--dyn-structural-tag-schema is deprecated; use --dyn-structural-tag',
  ]);
  assert.deepEqual(publishedStructuralTag(flags(['--no-dyn-enable-structural-tag']), true).runtimeConfig, OFF);
  assert.deepEqual(publishedStructuralTag(flags([], { DYN_ENABLE_STRUCTURAL_TAG: 'false' }), true).runtimeConfig, OFF);
  // Tuning alone tunes the default: on for engine workers, still off for the mocker.
  assert.equal(publishedStructuralTag(flags(['--dyn-structural-tag-scope', 'auto']), true).runtimeConfig.structural_tag_scope, 'auto');
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag-schema', 'strict']), false).runtimeConfig, OFF);
  assert.equal(publishedStructuralTag(flags([], { DYN_STRUCTURAL_TAG_SCHEMA: 'strict' }), true).runtimeConfig.structural_tag_schema, 'strict');
});

test('the new flag with an older one that says otherwise is refused', () => {
  assert.throws(() => publishedStructuralTag(flags(['--dyn-structural-tag', '{}', '--dyn-structural-tag-scope', 'always']), true), /cannot be combined with --dyn-structural-tag-scope/);
  assert.throws(() => publishedStructuralTag(flags(['--dyn-structural-tag', 'false', '--dyn-enable-structural-tag']), true), /cannot be combined with --dyn-enable-structural-tag/);
  assert.deepEqual(publishedStructuralTag(flags(['--dyn-structural-tag', '--dyn-enable-structural-tag']), false).runtimeConfig, ON, 'the same says the same');
});

test('worker openai publishes structural tags on by default, off when turned off', () => {
  const worker = (args: string[]) => {
    const config = runConfig(['worker', 'openai', '--upstream', 'http://127.0.0.1:1', ...args], {});
    return bridgeModelFromConfig(config).runtimeConfig;
  };
  assert.equal(worker([]).structural_tag_mode, 'on');
  assert.equal(worker(['--dyn-structural-tag', 'false']).structural_tag_mode, 'off');
});
