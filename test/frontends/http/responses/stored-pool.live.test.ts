// `serve --http-workers 2` without --response-store: the pool keeps stored responses in the host's
// file store (said once in the startup log, with why), so a response created through one connection
// is read, replayed, listed and continued through many others, whichever process each lands on, and
// it outlives a restart of the pool. --response-store memory is refused for a pool.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { freshConnectionFetch } from '../../../support/fresh-connection-fetch.js';
import { jsonLogLines, untilLogLine } from '../../../support/json-log.js';
import { freePort, runCli, startProcess, type RunningProcess } from '../../../support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const READY_MS = 180_000;
const dir = mkdtempSync(join(tmpdir(), 'stored-pool-'));

let port: number;
let serve: RunningProcess;
let nextId = 0;
/** The request ids sent, to find which process served each. */
const sent: string[] = [];

/** A client whose every request opens its own connection, so the pool spreads them over its processes. */
function client(): OpenAI {
  const id = `stored-pool-${nextId++}`;
  sent.push(id);
  return new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, fetch: freshConnectionFetch, defaultHeaders: { 'x-request-id': id } });
}

async function startPool(): Promise<RunningProcess> {
  const proc = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', '2', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000'],
    { DYN_LOGGING_JSONL: 'true', DYN_LOG: 'info,http=debug', DYN_RESPONSE_STORE_PATH: dir },
  );
  const ready = await untilLogLine(proc, 'serve listening', (l) => l.msg === 'dynamo-ts serve listening', READY_MS);
  assert.equal(ready.processes, 2);
  return proc;
}

before(async () => {
  port = await freePort();
  serve = await startPool();
});

after(async () => {
  await serve?.stop(30_000);
  rmSync(dir, { recursive: true, force: true });
});

let created: OpenAI.Responses.Response;
let last: OpenAI.Responses.Response;

test('the pool chooses the file store, and says so once with why', () => {
  const choices = jsonLogLines(serve).filter((l) => l.msg === 'stored responses kept in the response store');
  assert.equal(choices.length, 1);
  assert.equal(choices[0]!.response_store, 'file');
  assert.equal(choices[0]!.reason, '2 frontend processes share one store');
  assert.equal(choices[0]!.path, dir);
});

test('a response created through one connection is read, replayed, listed and continued through many others', async () => {
  created = await client().responses.create({ model: MODEL, input: 'turn 0', instructions: 'Be brief.' });
  last = created;
  /** The chain written out: each turn's input items, then its output. */
  const history: unknown[] = [];
  for (let turn = 1; turn <= 8; turn++) {
    assert.deepEqual(await client().responses.retrieve(created.id), created);
    const items = await client().responses.inputItems.list(last.id, { order: 'asc' });
    assert.equal(items.data.length, 1);
    history.push(...items.data, ...last.output);
    const replayed = [];
    for await (const event of await client().responses.retrieve(last.id, { stream: true })) replayed.push(event);
    assert.equal(replayed[replayed.length - 1]!.type, 'response.completed');
    const next = await client().responses.create({ model: MODEL, input: `turn ${turn}`, previous_response_id: last.id });
    assert.equal(next.output_text, `turn ${turn}`);
    assert.equal(next.previous_response_id, last.id);
    assert.equal(next.instructions, null);
    last = next;
  }
  // The whole chain is read as the last turn's history, wherever each turn was stored.
  history.push(...(await client().responses.inputItems.list(last.id, { order: 'asc' })).data, ...last.output, { role: 'user', content: 'turn 9' });
  const chained = await client().responses.inputTokens.count({ model: MODEL, input: 'turn 9', previous_response_id: last.id });
  const byHand = await client().responses.inputTokens.count({ model: MODEL, input: history as OpenAI.Responses.ResponseInput });
  assert.equal(chained.input_tokens, byHand.input_tokens);
  // Both processes served some of these requests: the reads did cross processes.
  const served = new Set<number>();
  for (const id of sent) served.add((await untilLogLine(serve, `request ${id}`, (l) => l.msg === 'request finished' && l.request_id === id, READY_MS)).pid);
  assert.equal(served.size, 2);
});

test('restarted, the pool still has the responses', async () => {
  await serve.stop(30_000);
  serve = await startPool();
  assert.deepEqual(await client().responses.retrieve(created.id), created);
  assert.deepEqual(await client().responses.retrieve(last.id), last);
});

test('--response-store memory is refused for a pool', async () => {
  const { code, output } = await runCli(['serve', '--http-workers', '2', '--response-store', 'memory']);
  assert.equal(code, 2);
  assert.match(output, /--response-store memory keeps responses in one process, and this frontend runs 2/);
});
