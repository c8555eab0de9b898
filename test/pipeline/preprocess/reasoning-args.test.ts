// The deployment's thinking default (`--dyn-default-thinking-mode`) stated to the template in every
// dialect, and only where the request carries no thinking control of its own.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDefaultThinking } from '../../../src/pipeline/preprocess/reasoning-args.js';

test('no default: the arguments are returned as they were', () => {
  const args = { foo: 1 };
  assert.equal(withDefaultThinking(args, null), args);
  assert.equal(withDefaultThinking(undefined, null), undefined);
});

test('a default fills every dialect when the request said nothing', () => {
  assert.deepEqual(withDefaultThinking(undefined, 'disabled'), { thinking: false, enable_thinking: false, thinking_mode: 'disabled' });
  assert.deepEqual(withDefaultThinking({ custom: 'x' }, 'enabled'), { custom: 'x', thinking: true, enable_thinking: true, thinking_mode: 'enabled' });
});

test("any thinking control of the request's own wins over the default", () => {
  for (const own of [{ enable_thinking: true }, { thinking: false }, { thinking_mode: 'adaptive' }, { reasoning_effort: 'low' }]) {
    assert.deepEqual(withDefaultThinking(own, 'disabled'), own, JSON.stringify(own));
  }
});
