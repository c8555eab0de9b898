// API keys and the admin switch across every frontend of one process: OpenAI and Anthropic routes
// through their official clients, the admin route, the open probes, and the KServe gRPC service.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import * as grpc from '@grpc/grpc-js';
import OpenAI from 'openai';
import { eventually, serveInProcess } from '../support/in-process.js';
import { freePort, runCli, startProcess } from '../support/processes.js';
import { makeClient, unary, type Client } from '../frontends/grpc/harness.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const CHAT = { model: MODEL, messages: [{ role: 'user' as const, content: 'Hello' }], max_tokens: 3 };

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const metadata = (key?: string): grpc.Metadata => {
  const md = new grpc.Metadata();
  if (key !== undefined) md.set('authorization', `Bearer ${key}`);
  return md;
};
const grpcCode = (code: number) => (e: grpc.ServiceError) => e.code === code;

async function waitReady(baseUrl: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${baseUrl}/v1/models`, { headers }).catch(() => undefined);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('model not ready');
}

describe('with API keys', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;
  let grpcClient: Client;

  before(async () => {
    ctx = await serveInProcess(['--api-key', 'key-one', '--api-key', 'key-two', '--enable-anthropic-api', '--grpc-port', String(await freePort()), '--speedup-ratio', '100']);
    await waitReady(ctx.baseUrl, bearer('key-one'));
    grpcClient = makeClient(ctx.service.grpc!.grpcPort);
  });
  after(async () => {
    grpcClient.close();
    await ctx.service.stop();
  });

  test('OpenAI routes answer a listed key and refuse others with 401 in the OpenAI envelope', async () => {
    const good = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'key-two', maxRetries: 0 });
    const answer = await good.chat.completions.create(CHAT);
    assert.equal(answer.object, 'chat.completion');
    let chunks = 0;
    for await (const _chunk of await good.completions.create({ model: MODEL, prompt: 'Hi', max_tokens: 2, stream: true })) chunks++;
    assert.ok(chunks > 0);

    const wrong = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'key-three', maxRetries: 0 });
    await assert.rejects(wrong.chat.completions.create(CHAT), (e: unknown) => {
      assert.ok(e instanceof OpenAI.AuthenticationError);
      assert.equal(e.status, 401);
      assert.equal(e.message, '401 Invalid API key');
      return true;
    });

    const missing = await fetch(`${ctx.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CHAT) });
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    const body = (await missing.json()) as { message: string; type: string; code: number };
    assert.deepEqual([body.type, body.code], ['Unauthorized', 401]);
    assert.match(body.message, /^Missing API key: send `Authorization: Bearer <key>`/);
  });

  test('a key prefix, a longer key or a non-bearer scheme is refused', async () => {
    for (const authorization of ['Bearer key-on', 'Bearer key-one2', 'Basic key-one', 'key-one']) {
      const res = await fetch(`${ctx.baseUrl}/v1/models`, { headers: { authorization } });
      assert.equal(res.status, 401, authorization);
    }
  });

  test('Anthropic Messages take x-api-key and refuse with an authentication_error', async () => {
    const good = new Anthropic({ baseURL: ctx.baseUrl, apiKey: 'key-one', maxRetries: 0 });
    const message = await good.messages.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'Hello' }] });
    assert.equal(message.type, 'message');
    const wrong = new Anthropic({ baseURL: ctx.baseUrl, apiKey: 'nope', maxRetries: 0 });
    await assert.rejects(wrong.messages.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'Hello' }] }), (e: unknown) => {
      assert.ok(e instanceof Anthropic.AuthenticationError);
      assert.deepEqual((e.error as { type: string; error: { type: string } }).error.type, 'authentication_error');
      return true;
    });
  });

  test('probes, metrics and the API description stay open; admin and unknown routes need a key', async () => {
    for (const p of ['/health', '/live', '/metrics', '/openapi.json', '/docs']) {
      assert.equal((await fetch(`${ctx.baseUrl}${p}`)).status, 200, p);
    }
    const admin = await fetch(`${ctx.baseUrl}/busy_threshold`);
    assert.equal(admin.status, 401);
    assert.match(((await admin.json()) as { error: string }).error, /^Missing API key/);
    assert.equal((await fetch(`${ctx.baseUrl}/busy_threshold`, { headers: bearer('key-two') })).status, 200, 'a key opens admin routes');
    assert.equal((await fetch(`${ctx.baseUrl}/nowhere`)).status, 401);
    assert.equal((await fetch(`${ctx.baseUrl}/nowhere`, { headers: bearer('key-one') })).status, 404);
  });

  test('gRPC calls need the key in metadata; health stays open', async () => {
    await assert.rejects(unary(grpcClient, 'ServerLive', {}), grpcCode(grpc.status.UNAUTHENTICATED));
    await assert.rejects(unary(grpcClient, 'ServerLive', {}, metadata('wrong')), grpcCode(grpc.status.UNAUTHENTICATED));
    assert.deepEqual(await unary(grpcClient, 'ServerLive', {}, metadata('key-two')), { live: true });
    await assert.rejects(unary(grpcClient, 'RepositoryModelUnload', { model_name: MODEL }), grpcCode(grpc.status.UNAUTHENTICATED));
    const Health = grpc.makeGenericClientConstructor(
      {
        Check: {
          path: '/grpc.health.v1.Health/Check',
          requestStream: false,
          responseStream: false,
          requestSerialize: () => Buffer.alloc(0),
          requestDeserialize: () => ({}),
          responseSerialize: () => Buffer.alloc(0),
          responseDeserialize: (b: Buffer) => b,
        },
      },
      'Health',
    );
    const health = new Health(`127.0.0.1:${ctx.service.grpc!.grpcPort}`, grpc.credentials.createInsecure());
    try {
      await new Promise<void>((resolve, reject) =>
        (health as unknown as { Check(r: unknown, cb: (e: Error | null) => void): void }).Check({}, (e) => (e ? reject(e) : resolve())),
      );
    } finally {
      health.close();
    }
  });
});

describe('without API keys', () => {
  test('--no-enable-admin-api removes the admin surface (404 / UNIMPLEMENTED); inference stays open', async () => {
    const ctx = await serveInProcess(['--grpc-port', String(await freePort()), '--no-enable-admin-api']);
    const client = makeClient(ctx.service.grpc!.grpcPort);
    try {
      const res = await fetch(`${ctx.baseUrl}/busy_threshold`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"x"}' });
      assert.equal(res.status, 404);
      await assert.rejects(unary(client, 'RepositoryModelUnload', { model_name: MODEL }), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.UNIMPLEMENTED);
        assert.match(e.details, /RepositoryModelUnload is an admin call and the admin API is off/);
        return true;
      });
      assert.deepEqual(await unary(client, 'ServerLive', {}), { live: true });
      assert.equal((await fetch(`${ctx.baseUrl}/v1/models`)).status, 200);
    } finally {
      client.close();
      await ctx.service.stop();
    }
  });

  test('the admin surface is served by default, as upstream serves it', async () => {
    const ctx = await serveInProcess(['--grpc-port', String(await freePort())]);
    const client = makeClient(ctx.service.grpc!.grpcPort);
    try {
      assert.equal((await fetch(`${ctx.baseUrl}/busy_threshold`)).status, 200);
      assert.deepEqual(await unary(client, 'RepositoryModelUnload', { model_name: MODEL }), {});
    } finally {
      client.close();
      await ctx.service.stop();
    }
  });
});

test('DYN_API_KEYS takes a comma-separated list; --protect-metrics closes /metrics', async () => {
  const ctx = await serveInProcess(['--protect-metrics'], { DYN_API_KEYS: 'alpha,beta' });
  try {
    assert.equal((await fetch(`${ctx.baseUrl}/metrics`)).status, 401);
    assert.equal((await fetch(`${ctx.baseUrl}/metrics`, { headers: bearer('beta') })).status, 200);
    assert.equal((await fetch(`${ctx.baseUrl}/v1/models`, { headers: bearer('alpha') })).status, 200);
    assert.equal((await fetch(`${ctx.baseUrl}/health`)).status, 200);
  } finally {
    await ctx.service.stop();
  }
});

test('--api-keys-file is read at start and again when it changes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dynamo-keys-'));
  const file = path.join(dir, 'keys');
  writeFileSync(file, '# team A\nfirst-key\n\n  # team B\n');
  const ctx = await serveInProcess(['--api-keys-file', file]);
  const status = async (key: string) => (await fetch(`${ctx.baseUrl}/v1/models`, { headers: bearer(key) })).status;
  try {
    assert.equal(await status('first-key'), 200);
    assert.equal(await status('# team A'), 401);
    // Replaced the way editors and secret mounts do it: a new file renamed over the old one.
    writeFileSync(`${file}.new`, 'second-key\n');
    renameSync(`${file}.new`, file);
    let now = 0;
    await eventually(() => {
      void status('second-key').then((s) => (now = s));
      return now === 200;
    }, 30_000, 'the new key');
    assert.equal(await status('first-key'), 401);
  } finally {
    await ctx.service.stop();
  }
});

test('keys never reach the logs, the config dump nor --help', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dynamo-keys-'));
  const dump = path.join(dir, 'config.json');
  const port = await freePort();
  const proc = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--api-key', 'cli-secret-value', '--dump-config-to', dump],
    { DYN_GRPC_AUTH_TOKEN: 'grpc-secret-value', DYN_LOG: 'debug' },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(baseUrl, bearer('cli-secret-value'));
    await fetch(`${baseUrl}/v1/models`, { headers: bearer('wrong-secret-value') });
    const config = JSON.parse(readFileSync(dump, 'utf8')) as { apiKey: string[]; grpcAuthToken: string };
    assert.deepEqual(config.apiKey, ['<redacted>']);
    assert.equal(config.grpcAuthToken, '<redacted>');
  } finally {
    await proc.stop();
  }
  assert.doesNotMatch(proc.output() + readFileSync(dump, 'utf8'), /secret-value/);
  const help = await runCli(['serve', '--help'], { DYN_API_KEYS: 'env-secret-value' });
  assert.match(help.output, /--api-key <key> \(repeatable\)/);
  assert.match(help.output, /--enable-admin-api, --no-enable-admin-api[\s\S]*its calls need a key like every route/);
  assert.doesNotMatch(help.output, /secret-value/);
});
