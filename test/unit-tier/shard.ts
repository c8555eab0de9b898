/**
 * Runs the unit tier in a few long-lived processes. Starting a process per file costs more CPU than most unit files
 * do (and each process would load the tokenizer files again), so each shard process imports many files. Each file
 * is imported inside its own suite, named by its path: node:test attaches the tests and top-level hooks a file
 * registers while it loads to that suite, so its `before`/`after` stay scoped to it and a failure is reported under
 * the file's path.
 *
 * With DYNAMO_TS_UNIT_CLAIMS (a folder shared by the shards, see run.ts) the shards take files one at a time as they
 * get free, by creating a marker file per file, so a busy shard does not hold up the run; without it, shard k of n
 * takes every n-th file.
 */
import { AsyncResource } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { isUnitTier, testFiles } from '../support/unit-tier.js';

const BUILT_TESTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The files are listed from the sources, so a built file whose source is gone does not run. */
const SOURCE_TESTS = path.resolve(BUILT_TESTS, '../../test');

/**
 * node:test places a test under the test whose async context it is created in; run in this context, created outside
 * any test, a suite lands at the top level.
 */
const TOP_LEVEL = new AsyncResource('unit-tier-shard');

/**
 * A suite named by the file's source path whose body imports the built file. `started` runs at the top level when
 * the suite starts running (or when its file fails to load): node:test ends the run once the top level has no suite
 * left, so the next file's suite must be registered before this one ends.
 */
function fileSuite(file: string, started?: () => void): void {
  const atTopLevel = started && ((): void => TOP_LEVEL.runInAsyncScope(started));
  describe(`test/${file}`, async () => {
    if (atTopLevel) before(atTopLevel);
    try {
      await import(pathToFileURL(path.join(BUILT_TESTS, file.replace(/\.ts$/, '.js'))).href);
    } catch (error) {
      atTopLevel?.();
      throw error;
    }
  });
}

/** True when this process is the first to take file number `index`. */
function claim(claims: string, index: number): boolean {
  try {
    writeFileSync(path.join(claims, String(index)), '', { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export function runUnitShard(shard: number, shards: number): void {
  const files = testFiles(SOURCE_TESTS).filter(isUnitTier);
  const claims = process.env['DYNAMO_TS_UNIT_CLAIMS'];
  if (!claims) {
    files.forEach((file, index) => index % shards === shard && fileSuite(file));
    return;
  }
  let next = 0;
  const takeNext = (): void => {
    while (next < files.length) {
      const index = next++;
      if (!claim(claims, index)) continue;
      fileSuite(files[index]!, takeNext);
      return;
    }
  };
  takeNext();
}
