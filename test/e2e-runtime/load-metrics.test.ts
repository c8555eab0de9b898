// Busy detection across processes: a mocker worker publishes its KV load (ActiveLoad on kv_metrics)
// over the NATS and the ZMQ event planes, and the frontend answers 529 while that worker is over the
// threshold, and serves again once the load is gone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startNats, type InfraServer } from '../support/infra-servers.js';
import { postJson } from '../support/in-process.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let nats: InfraServer;

before(async () => {
  nats = await startNats();
});

after(async () => {
  await nats?.dispose();
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function hiStatus(baseUrl: string): Promise<number> {
  const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 1 });
  await res.arrayBuffer();
  return res.status;
}

for (const plane of ['nats', 'zmq'] as const) {
  test(`${plane} event plane: a worker over --active-decode-blocks-threshold is busy (529) until its load drops`, async () => {
    const kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-load-'));
    const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_EVENT_PLANE: plane, NATS_SERVER: nats.url };
    const frontend = await startFrontendProcess(env, ['--active-decode-blocks-threshold', '0.05']);
    const worker = startMockerProcess(env, ['--num-gpu-blocks-override', '100', '--block-size', '16', '--speedup-ratio', '1']);
    try {
      await waitForModel(frontend.baseUrl, MODEL, frontend.proc);
      assert.equal(await hiStatus(frontend.baseUrl), 200, 'an idle worker is not busy');
      const long = await postJson(frontend.baseUrl, '/v1/completions', {
        model: MODEL,
        prompt: 'Tell me a story about the sea. '.repeat(20),
        max_tokens: 1200,
        ignore_eos: true,
        stream: true,
      });
      const reader = long.body!.getReader();
      await reader.read();
      await until('529 while the long request holds KV blocks', async () => (await hiStatus(frontend.baseUrl)) === 529);
      await reader.cancel();
      await until('200 once the worker reports its blocks freed', async () => (await hiStatus(frontend.baseUrl)) === 200);
    } finally {
      await stopAll([frontend.proc, worker]);
      rmSync(kvRoot, { recursive: true, force: true });
    }
  });
}
