// The CLI says once, at startup, that a key given as a flag is visible in `ps`: once for a pool of
// frontend processes too (each process runs the same command line), and without the key itself.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, runCli } from '../support/processes.js';

test('frontend --api-key: one warn line naming the variable and the key file, the key never printed', async () => {
  // etcd unreachable ends the run right after startup's warnings: nothing needs to be served.
  const etcd = `http://127.0.0.1:${await freePort()}`;
  const { code, output } = await runCli(['frontend', '--http-port', '0', '--http-workers', '2', '--api-key', 'sk-visible-in-ps'], {
    ETCD_ENDPOINTS: etcd,
    DYN_LOG: 'warn',
    DYN_LOGGING_JSONL: '1',
  });
  assert.equal(code, 1, output);
  const warnings = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => /command line/.test(line.msg));
  assert.equal(warnings.length, 1, output);
  assert.equal(warnings[0]!.level, 40, 'warn');
  assert.match(warnings[0]!.msg, /^--api-key on the command line .*set DYN_API_KEYS or --api-keys-file instead$/);
  assert.doesNotMatch(output, /sk-visible-in-ps/);
});
