// `dynamo-ts mocker` and a frontend over the TCP request plane with mutual TLS, configured only by
// the --tcp-tls-* environment variables; a frontend without them reaches the worker's listener but
// gets no answer. Certificates are made at test time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startFrontend, type FrontendService } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { makePki, type Pki } from '../support/certs.js';
import { eventually } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startMockerProcess, stopAll } from './helpers.js';
import { runConfig } from '../support/run-config.js';

let pki: Pki;
let kvRoot: string;
let worker: RunningProcess;
const frontends: FrontendService[] = [];

function tlsEnv(): Record<string, string> {
  return {
    DYN_TCP_TLS_CERT_PATH: pki.serverCert,
    DYN_TCP_TLS_KEY_PATH: pki.serverKey,
    DYN_TCP_TLS_CA_CERT_PATH: pki.caPath,
    DYN_TCP_TLS_CLIENT_CERT_PATH: pki.clientCertPath,
    DYN_TCP_TLS_CLIENT_KEY_PATH: pki.clientKeyPath,
    DYN_TCP_TLS_CLIENT_CA_CERT_PATH: pki.caPath,
  };
}

async function frontendWith(env: Record<string, string>): Promise<FrontendService> {
  const config = runConfig(['frontend', '--http-host', '127.0.0.1', '--http-port', '0'], env);
  const frontend = await startFrontend(config, createLogger('silent'));
  frontends.push(frontend);
  await eventually(() => frontend.models.has(MODEL) && frontend.models.get(MODEL).router.instanceIds.length === 1, 60_000, `the worker:\n${worker.output()}`);
  return frontend;
}

const chat = (frontend: FrontendService) =>
  new OpenAI({ baseURL: `http://127.0.0.1:${frontend.port}/v1`, apiKey: 'unused', maxRetries: 0 }).chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 3,
  });

const base = () => ({ DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq', DYN_TCP_RPC_HOST: '127.0.0.1' });

before(() => {
  pki = makePki();
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-tls-kv-'));
  worker = startMockerProcess({ ...base(), ...tlsEnv() }, ['--speedup-ratio', '100']);
});

after(async () => {
  await stopAll([worker]);
  for (const f of frontends) await f.stop();
  rmSync(kvRoot, { recursive: true, force: true });
});

test('a frontend with the --tcp-tls-* files gets answers over mutual TLS, on the host it was told', async () => {
  const frontend = await frontendWith({ ...base(), ...tlsEnv() });
  const answer = await chat(frontend);
  assert.equal(answer.choices[0]!.finish_reason, 'length');
  assert.equal((frontend.http.app.server.address() as AddressInfo).address, '127.0.0.1');
});

test('a frontend without TLS gets an error, not an answer', async () => {
  const frontend = await frontendWith(base());
  await assert.rejects(chat(frontend), (e: { status?: number }) => (e.status ?? 0) >= 500);
});
