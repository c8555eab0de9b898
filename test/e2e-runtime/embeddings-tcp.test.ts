// `dynamo-ts frontend` + `dynamo-ts mocker --model-type embedding` as separate processes over file
// discovery and the TCP request plane: the worker's card says Embedding, the frontend routes
// /v1/embeddings to it (token ids over the wire, vectors back in the Annotated envelope) and
// refuses chat on it with a 400 that names the type.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { RunningProcess } from '../support/processes.js';
import { startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

const MODEL = 'embedder';
let kvRoot: string;
let frontend: RunningProcess;
let worker: RunningProcess;
let client: OpenAI;

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-emb-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '2' };
  const started = await startFrontendProcess(env);
  frontend = started.proc;
  worker = startMockerProcess(env, ['--model-type', 'embedding', '--model-name', MODEL, '--num-workers', '2']);
  await waitForModel(started.baseUrl, MODEL, worker);
  client = new OpenAI({ baseURL: `${started.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await stopAll([worker, frontend]);
  rmSync(kvRoot, { recursive: true, force: true });
});

test('embeddings cross the TCP request plane: equal inputs give equal unit vectors on either worker', async () => {
  const inputs = ['a remote sentence', 'a remote sentence', 'something else entirely'];
  const answers = await Promise.all([1, 2, 3, 4].map(() => client.embeddings.create({ model: MODEL, input: inputs, dimensions: 48 })));
  for (const res of answers) {
    assert.equal(res.data.length, 3);
    assert.equal(res.data[0]!.embedding.length, 48);
    assert.deepEqual(res.data[0]!.embedding, answers[0]!.data[0]!.embedding);
    assert.ok(Math.abs(Math.hypot(...res.data[2]!.embedding) - 1) < 1e-6);
  }
  // base64 carries float32: compare at its precision.
  answers[0]!.data[0]!.embedding.forEach((x, i) => assert.ok(Math.abs(x - answers[0]!.data[1]!.embedding[i]!) < 1e-7));
});

test('chat on the remote embedding model is a 400 naming its type', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    (e: InstanceType<typeof OpenAI.APIError>) => e.status === 400 && /is of type Embedding/.test(e.message),
  );
});
