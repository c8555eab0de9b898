// Outages of etcd and NATS, with the real servers stopped and restarted under a KV-routing frontend
// and two mocker processes (etcd discovery, NATS events, TCP requests): each loss is logged once at
// warn and each return once at info; /health says `degraded` (still 200) and names the plane;
// `plane_up` drops to 0 and back; requests are served throughout; while events are down the KV
// router predicts from its own decisions instead of losing its cache awareness, and after they
// return it holds the workers' caches again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, startNats, type InfraServer } from '../support/infra-servers.js';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, until, waitForModel } from './helpers.js';

/** Predicted blocks live this long, so what the router holds after it is what workers reported. */
const PREDICTION_TTL_SECS = 2;
const OUTAGE_BOUND_MS = 30_000;

let etcd: InfraServer;
let nats: InfraServer;
let frontend: { proc: RunningProcess; baseUrl: string };
let workers: RunningProcess[] = [];

before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
  const env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, NATS_SERVER: nats.url, DYN_LOG: 'warn,runtime=info' };
  frontend = await startFrontendProcess(env, ['--router-mode', 'kv', '--router-ttl-secs', String(PREDICTION_TTL_SECS)]);
  workers = [0, 1].map(() => startMockerProcess(env));
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 120_000);
  await until(async () => (await health()).instances.length === 2, 60_000, 'two worker instances');
});

after(async () => {
  await stopAll([frontend?.proc, ...workers]);
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
});

interface Health {
  status: string;
  degraded?: { plane?: string; what?: string; effect?: string; down_secs?: number }[];
  instances: unknown[];
}

async function health(): Promise<Health & { code: number }> {
  const res = await fetch(`${frontend.baseUrl}/health`);
  return { code: res.status, ...((await res.json()) as Health) };
}

async function planeUp(plane: string): Promise<number> {
  const text = await (await fetch(`${frontend.baseUrl}/metrics`)).text();
  const line = new RegExp(`^dynamo_frontend_plane_up\\{plane="${plane}"\\} (\\d)$`, 'm').exec(text);
  assert.ok(line, `plane_up{plane="${plane}"} in /metrics`);
  return Number(line[1]);
}

/** The cached prefix blocks the KV router credited its last decisions with, in all. */
async function overlapBlocks(): Promise<number> {
  const text = await (await fetch(`${frontend.baseUrl}/metrics`)).text();
  const line = /^dynamo_component_router_overlap_blocks_sum\{[^}]*\} (\S+)$/m.exec(text);
  return line ? Number(line[1]) : 0;
}

/** A completion of `prompt`; returns the prefix blocks its routing found cached. */
async function routed(prompt: string): Promise<number> {
  const before = await overlapBlocks();
  const res = await postJson(frontend.baseUrl, '/v1/completions', { model: MODEL, prompt, max_tokens: 2 });
  assert.equal(res.status, 200, await res.text());
  return (await overlapBlocks()) - before;
}

/** A prompt long enough for several KV blocks, different for each `seed`. */
function longPrompt(seed: number): string {
  return Array.from({ length: 400 }, (_, i) => `word${(i * 7919 + seed * 104729) % 5000}`).join(' ');
}

const count = (output: string, text: string): number => output.split(text).length - 1;

test('etcd stopped and restarted: one warn, /health degraded naming discovery, plane_up 0, requests served, then one info and healthy', async () => {
  const lost = 'etcd at ' + etcd.url + ' lost';
  await etcd.stop();
  await until(() => frontend.proc.output().includes(lost), OUTAGE_BOUND_MS, 'the frontend logs etcd lost');
  const during = await health();
  assert.equal(during.code, 200);
  assert.equal(during.status, 'degraded');
  assert.equal(during.degraded?.[0]?.plane, 'discovery');
  assert.match(during.degraded?.[0]?.effect ?? '', /workers that start or stop go unseen/);
  assert.equal(await planeUp('discovery'), 0);
  assert.equal(await planeUp('events'), 1);
  for (let i = 0; i < 3; i++) assert.ok((await routed(longPrompt(50 + i))) >= 0, 'served while etcd is down');
  // Workers notice at their next lease keep-alive (every TTL/3).
  await until(() => workers.every((w) => w.output().includes(lost)), OUTAGE_BOUND_MS, 'each worker logs etcd lost');
  await etcd.restart();
  await until(() => frontend.proc.output().includes(`etcd at ${etcd.url} back after`), OUTAGE_BOUND_MS, 'the frontend logs etcd back');
  await until(async () => (await health()).status === 'healthy', OUTAGE_BOUND_MS, '/health healthy again');
  assert.equal(await planeUp('discovery'), 1);
  assert.equal(count(frontend.proc.output(), lost), 1, 'the loss is logged once');
  assert.match(frontend.proc.output(), /"level":40[^\n]*etcd at [^\n]* lost/, 'at warn');
  assert.match(frontend.proc.output(), /"level":30[^\n]*etcd at [^\n]* back after [\d.]+ s down/, 'the return at info, with how long');
  await until(() => workers.every((w) => w.output().includes(`etcd at ${etcd.url} back after`)), OUTAGE_BOUND_MS, 'each worker logs etcd back');
  for (const w of workers) assert.equal(count(w.output(), lost), 1, 'each worker logs the loss once');
});

test('NATS stopped and restarted: KV routing keeps its cache awareness by prediction, then holds the workers\' reports again', async () => {
  const lost = `NATS at ${nats.url} lost`;
  const known = longPrompt(1);
  await routed(known);
  await until(async () => (await routed(known)) > 0, 10_000, 'the router learns a prompt from KV events');
  await nats.stop();
  await until(() => frontend.proc.output().includes(lost), OUTAGE_BOUND_MS, 'the frontend logs NATS lost');
  const during = await health();
  assert.equal(during.code, 200);
  assert.equal(during.status, 'degraded');
  assert.equal(during.degraded?.[0]?.plane, 'events');
  assert.match(during.degraded?.[0]?.effect ?? '', /KV routers predict cache contents/);
  assert.equal(await planeUp('events'), 0);
  assert.ok((await routed(known)) > 0, 'what it knew before the outage still counts');
  const fresh = longPrompt(2);
  assert.equal(await routed(fresh), 0, 'a new prompt: nothing cached yet');
  assert.ok((await routed(fresh)) > 0, 'the same prompt again: its prediction counts while events are down');

  await nats.restart();
  await until(() => frontend.proc.output().includes(`NATS at ${nats.url} back after`), OUTAGE_BOUND_MS, 'the frontend logs NATS back');
  await until(async () => (await health()).status === 'healthy', OUTAGE_BOUND_MS, '/health healthy again');
  assert.equal(await planeUp('events'), 1);
  // Past the predictions' lifetime, what counts is what the workers reported (announced again on their return).
  await new Promise((r) => setTimeout(r, PREDICTION_TTL_SECS * 1000 + 2_500));
  assert.ok((await routed(fresh)) > 0, 'the prompt sent during the outage is known from the workers\' own reports');
  const newer = longPrompt(3);
  await routed(newer);
  await until(async () => (await routed(newer)) > 0, 10_000, 'new KV events are applied again');
  assert.equal(count(frontend.proc.output(), lost), 1, 'the loss is logged once');
  for (const w of workers) {
    assert.equal(count(w.output(), lost), 1, 'each worker logs the loss once');
    assert.match(w.output(), new RegExp(`NATS at ${nats.url.replace(/[.]/g, '\\.')} back after`));
  }
});
