/**
 * `npm run test:unit`: runs the unit tier in two shard processes under `node --test` (one per core of a small CI
 * machine), with test/support/unit-tier-trap.ts preloaded, sharing a folder of claims so that each file runs once.
 * Arguments go to `node --test` (e.g. `--test-name-pattern=...`, `--test-reporter=spec`). Exits with the runner's
 * status.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SHARDS = ['shard-1.js', 'shard-2.js'].map((file) => path.join(HERE, file));

const claims = mkdtempSync(path.join(os.tmpdir(), 'dynamo-ts-unit-'));
const runner = spawn(
  process.execPath,
  [
    // The tests make much short-lived garbage (tokenizer tables, generated corpora); a larger young generation
    // scavenges less often, ~7% less CPU.
    '--max-semi-space-size=32',
    '--import',
    path.join(HERE, '../support/unit-tier-trap.js'),
    '--test',
    `--test-concurrency=${SHARDS.length}`,
    ...process.argv.slice(2),
    ...SHARDS,
  ],
  { stdio: 'inherit', env: { ...process.env, DYNAMO_TS_UNIT_CLAIMS: claims } },
);
runner.on('exit', (code, signal) => {
  rmSync(claims, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
