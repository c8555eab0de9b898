// What the frontend reads of a worker's structural-tag settings in its card.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardStructuralTag } from '../../../src/models/assembly/index.js';

const card = (runtimeConfig: Record<string, unknown>) => ({ runtime_config: runtimeConfig });

test("upstream's newest structural_tag object, else the v1.5 mode, scope and schema, else off", () => {
  assert.deepEqual(cardStructuralTag(card({ structural_tag: { scope: 'auto', schema: 'strict', reasoning_boundary: 'backend' }, structural_tag_mode: 'off' }), 'm'), {
    scope: 'auto',
    schema: 'strict',
  });
  assert.deepEqual(cardStructuralTag(card({ structural_tag: {} }), 'm'), { scope: 'always', schema: 'auto' });
  assert.deepEqual(cardStructuralTag(card({ structural_tag_mode: 'on', structural_tag_scope: 'always', structural_tag_schema: 'strict' }), 'm'), { scope: 'always', schema: 'strict' });
  assert.deepEqual(cardStructuralTag(card({ structural_tag_mode: 'on' }), 'm'), { scope: 'auto', schema: 'auto' }, 'a v1.5 card leaves them auto');
  assert.equal(cardStructuralTag(card({ structural_tag_mode: 'off', structural_tag_scope: 'always' }), 'm'), null);
  assert.equal(cardStructuralTag(card({}), 'm'), null, 'an older worker says nothing: off');
  assert.equal(cardStructuralTag({}, 'm'), null);
});

test('a value this frontend does not know refuses the card, naming the model and the field', () => {
  assert.throws(() => cardStructuralTag(card({ structural_tag_mode: 'sometimes' }), 'm1'), /model m1: its card's runtime_config\.structural_tag_mode is 'sometimes' \(known: off, on\)/);
  assert.throws(() => cardStructuralTag(card({ structural_tag_mode: 'on', structural_tag_scope: 'never' }), 'm2'), /structural_tag_scope is 'never' \(known: auto, always\)/);
  assert.throws(() => cardStructuralTag(card({ structural_tag: { scope: 'auto', extra: 1 } }), 'm3'), /model m3: .*structural_tag has an unknown field `extra`/);
});
