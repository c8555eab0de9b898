import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { raiseFdLimit } from '../../src/launch/fd-limit.js';
import { createLogger } from '../../src/observability/index.js';

const logger = createLogger('error');
const hasPrlimit = (() => {
  try {
    execFileSync('prlimit', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

test('the soft open-file limit is raised toward the target, never above the hard limit', { skip: !hasPrlimit && 'util-linux prlimit not installed' }, async () => {
  const first = await raiseFdLimit(1, logger);
  assert.ok(first.before !== null && first.hard !== null);
  assert.equal(first.after, first.before, 'a target below the current limit changes nothing');
  const beyond = await raiseFdLimit(Number.MAX_SAFE_INTEGER, logger);
  assert.equal(beyond.after, beyond.hard, 'capped at the hard limit');
  assert.ok(beyond.after! >= first.before!);
});

test('elsewhere than Linux the limit is left alone, without failing', async () => {
  assert.deepEqual(await raiseFdLimit(8192, logger, 'darwin'), { before: null, after: null, hard: null });
});
