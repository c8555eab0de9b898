// The malloc settings: what the pool adds to its processes' environment, and the same values in
// `npm start` and the container image (glibc reads them only when a process starts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MALLOC_TUNING, mallocTuningFor } from '../../src/launch/malloc-tuning.js';
import { REPO_ROOT } from '../support/processes.js';

const assignments = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));

test('every setting is added unless the environment sets it: an operator value wins', () => {
  assert.deepEqual(mallocTuningFor({}), MALLOC_TUNING);
  assert.deepEqual(mallocTuningFor({ MALLOC_ARENA_MAX: '4', PATH: '/bin' }), {
    MALLOC_MMAP_THRESHOLD_: '131072',
    MALLOC_TRIM_THRESHOLD_: '131072',
  });
});

test('npm start and the container image set the same values', () => {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.deepEqual(assignments(pkg.scripts.start!), MALLOC_TUNING);
  const envLines = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('ENV '))
    .join(' ');
  assert.deepEqual(assignments(envLines), MALLOC_TUNING);
});
