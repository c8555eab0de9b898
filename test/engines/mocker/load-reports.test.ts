// The mocker reports its load when it changes: KV blocks in use and waiting requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineLoad } from '../../../src/protocols/index.js';
import { collect, fastEngine, prompt, request } from './helpers.js';

test('load is reported as blocks are taken and freed, never twice the same, never after close', async () => {
  const reports: EngineLoad[] = [];
  const engine = fastEngine({ blockSize: 16, numGpuBlocks: 200, onLoad: (l) => reports.push(l) });
  await collect(engine, request(prompt(100), { maxTokens: 40, ignoreEos: true }));
  assert.ok(reports.length >= 2, `reports: ${reports.length}`);
  assert.ok(reports.every((r) => r.dp_rank === 0));
  const peak = Math.max(...reports.map((r) => r.kv_used_blocks!));
  assert.equal(peak, Math.ceil((100 + 40) / 16), 'the prompt and every output token held blocks');
  assert.deepEqual(reports.at(-1), { dp_rank: 0, kv_used_blocks: 0, waiting_requests: 0 }, 'all freed at the end');
  for (let i = 1; i < reports.length; i++) assert.notDeepEqual(reports[i], reports[i - 1]);

  const abort = new AbortController();
  const pending = collect(engine, request(prompt(64, 1), { maxTokens: 100_000, ignoreEos: true }), abort.signal);
  while ((reports.at(-1)?.kv_used_blocks ?? 0) === 0) await new Promise((r) => setImmediate(r));
  abort.abort();
  await pending;
  assert.equal(reports.at(-1)!.kv_used_blocks, 0, 'a cancelled request frees its blocks and says so');

  const count = reports.length;
  const open = collect(engine, request(prompt(64, 2), { maxTokens: 100_000, ignoreEos: true }));
  while (reports.length === count) await new Promise((r) => setImmediate(r));
  engine.close();
  const afterClose = reports.length;
  await open;
  assert.equal(reports.length, afterClose, 'a closed engine reports nothing');
});
