import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InternalError,
  WorkerLostError,
  type GenerateContext,
  type LLMEngineOutput,
  type MigrationType,
  type PreprocessedRequest,
} from '../../../src/protocols/index.js';
import { drainStream } from '../../../src/protocols/index.js';
import { createRouterPolicy, PushRouter, type WorkerInstance } from '../../../src/router/index.js';
import { collect, fastEngine, ids, prompt, request } from '../../engines/mocker/helpers.js';
import { losingEngine } from '../../support/lost-workers.js';

const mocker = fastEngine();
test.after(() => mocker.close());

/** A worker serving the shared mocker that is lost after `dieAfter` outputs (never, by default). */
function worker(id: number, dieAfter = Infinity, seen: PreprocessedRequest[] = []): WorkerInstance {
  return { id: BigInt(id), client: losingEngine(mocker, dieAfter, `worker ${id}`, seen) };
}

function router(limit: number, maxSeqLen: number | null = null): PushRouter {
  return new PushRouter('mock', createRouterPolicy('round-robin'), { migration: { limit, maxSeqLen, logger: { warn: () => undefined } } });
}

async function run(r: PushRouter, req: PreprocessedRequest, migrations: MigrationType[] = []): Promise<LLMEngineOutput[]> {
  const outs: LLMEngineOutput[] = [];
  const ctx: GenerateContext = { requestId: 'm1', signal: new AbortController().signal, migrated: (type) => migrations.push(type) };
  for await (const out of r.generate(req, ctx)) outs.push(out);
  return outs;
}

const REQ = request(prompt(20, 3), { seed: 21, maxTokens: 60, ignoreEos: true });

test('a stream cut mid-way continues on another worker: same tokens, usage of the whole answer', async () => {
  const expected = await collect(mocker, REQ);
  const r = router(1);
  const seen: PreprocessedRequest[] = [];
  r.setInstances([worker(1, 17, seen), worker(2, Infinity, seen)]);
  const migrations: MigrationType[] = [];
  const outs = await run(r, REQ, migrations);
  assert.deepEqual(ids(outs), ids(expected));
  assert.deepEqual(outs.at(-1)!.completion_usage, { ...expected.at(-1)!.completion_usage, prompt_tokens_details: outs.at(-1)!.completion_usage!.prompt_tokens_details });
  assert.equal(outs.at(-1)!.completion_usage!.prompt_tokens, 20);
  assert.equal(outs.at(-1)!.completion_usage!.completion_tokens, 60);
  assert.deepEqual(migrations, ['ongoing_request']);
  // The re-sent request: prompt + the 17 tokens already streamed, 17 fewer to go.
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1]!.token_ids, [...REQ.token_ids, ...ids(expected).slice(0, 17)]);
  assert.equal(seen[1]!.stop_conditions.max_tokens, 43);
});

test('with migration off a mid-stream loss ends the stream with the original error, once', async () => {
  const r = router(0);
  r.setInstances([worker(1, 5), worker(2)]);
  const got: LLMEngineOutput[] = [];
  await assert.rejects(async () => {
    for await (const out of r.generate(REQ, { requestId: 'x', signal: new AbortController().signal })) got.push(out);
  }, (err: unknown) => err instanceof WorkerLostError && /worker 1 lost mid-stream/.test(err.message));
  assert.equal(got.length, 5);
});

test('a loss before the first output is retried elsewhere even with migration off, bounded by the instances', async () => {
  const r = router(0);
  const seen: PreprocessedRequest[] = [];
  r.setInstances([worker(1, 0, seen), worker(2, 0, seen), worker(3, Infinity, seen)]);
  const expected = ids(await collect(mocker, REQ));
  const migrations: MigrationType[] = [];
  // Round-robin starts anywhere: three requests meet both dead workers first at least once.
  for (let i = 0; i < 3; i++) assert.deepEqual(ids(await run(r, REQ, migrations)), expected);
  assert.ok(migrations.length >= 2);
  assert.ok(migrations.every((t) => t === 'new_request'));
  assert.equal(seen.length, 3 + migrations.length);
  assert.ok(seen.every((s) => s === REQ), 'retries before output send the request unchanged');

  const dead = router(0);
  dead.setInstances([worker(1, 0), worker(2, 0)]);
  await assert.rejects(run(dead, REQ), /unreachable/);
});

test('the limit bounds the moves; each failed worker is excluded for the request', async () => {
  const seen: PreprocessedRequest[] = [];
  const r = router(2);
  r.setInstances([worker(1, 10, seen), worker(2, 10, seen), worker(3, 10, seen)]);
  await assert.rejects(run(r, REQ), /lost mid-stream/);
  assert.equal(seen.length, 3, 'first attempt + 2 moves');

  const enough = router(2);
  enough.setInstances([worker(1, 10), worker(2, 10), worker(3)]);
  assert.deepEqual(ids(await run(enough, REQ)), ids(await collect(mocker, REQ)));

  // No worker left that has not failed this request: the original error.
  const few = router(5);
  few.setInstances([worker(1, 10), worker(2, 10)]);
  await assert.rejects(run(few, REQ), /worker 2 lost mid-stream/);
});

test('not moved: pinned requests, guided decoding, n > 1, other errors, past --migration-max-seq-len', async () => {
  const pinned: PreprocessedRequest = { ...REQ, routing: { backend_instance_id: 1 } };
  const r = router(3);
  r.setInstances([worker(1, 5), worker(2)]);
  await assert.rejects(run(r, pinned), /worker 1 lost/);
  const pinnedDead = router(3);
  pinnedDead.setInstances([worker(1, 0), worker(2)]);
  await assert.rejects(run(pinnedDead, pinned), /unreachable/);

  for (const unmovable of [
    { ...REQ, sampling_options: { ...REQ.sampling_options, guided_decoding: { json: {} } } },
    { ...REQ, sampling_options: { ...REQ.sampling_options, n: 2 } },
  ]) {
    const g = router(3);
    g.setInstances([worker(1, 5), worker(2)]);
    await assert.rejects(run(g, unmovable), /lost mid-stream/);
  }

  const failing: WorkerInstance = {
    id: 1n,
    client: {
      // eslint-disable-next-line require-yield
      async *generate(): AsyncGenerator<LLMEngineOutput> {
        throw new InternalError('engine bug');
      },
    },
  };
  const e = router(3);
  e.setInstances([failing, worker(2)]);
  await assert.rejects(run(e, REQ), /engine bug/);

  // 20 prompt tokens: with a bound of 30, the 11th generated token ends tracking; exactly 30 still moves.
  const atBound = router(3, 30);
  atBound.setInstances([worker(1, 10), worker(2)]);
  assert.equal(ids(await run(atBound, REQ)).length, 60);
  const past = router(3, 30);
  past.setInstances([worker(1, 11), worker(2)]);
  await assert.rejects(run(past, REQ), /lost mid-stream/);
});

test('a loss after the finishing output ends the stream quietly', async () => {
  const short = request(prompt(20, 3), { seed: 21, maxTokens: 8, ignoreEos: true });
  const r = router(0);
  r.setInstances([worker(1, 8), worker(2)]);
  const outs = await run(r, short);
  assert.equal(outs.at(-1)!.finish_reason, 'length');
  assert.equal(ids(outs).length, 8);
});

test('a cancelled request is not moved', async () => {
  const r = router(3);
  const abort = new AbortController();
  r.setInstances([worker(1, 5), worker(2)]);
  const got: LLMEngineOutput[] = [];
  await assert.rejects(async () => {
    for await (const out of r.generate(REQ, { requestId: 'c', signal: abort.signal })) {
      got.push(out);
      if (got.length === 5) abort.abort();
    }
  }, WorkerLostError);
});

test('pushed (as the frontends consume): a mid-stream loss continues on another worker into the same consumer', async () => {
  const expected = await collect(mocker, REQ);
  const r = router(1);
  r.setInstances([worker(1, 17), worker(2)]);
  const migrations: MigrationType[] = [];
  const outs: LLMEngineOutput[] = [];
  const ctx: GenerateContext = { requestId: 'p1', signal: new AbortController().signal, migrated: (type) => migrations.push(type) };
  await drainStream(r.generate(REQ, ctx), (out) => void outs.push(out));
  assert.deepEqual(ids(outs), ids(expected));
  assert.deepEqual(migrations, ['ongoing_request']);

  const off = router(0);
  off.setInstances([worker(1, 5), worker(2)]);
  const got: LLMEngineOutput[] = [];
  await assert.rejects(
    drainStream(off.generate(REQ, { requestId: 'p2', signal: new AbortController().signal }), (out) => void got.push(out)),
    (err: unknown) => err instanceof WorkerLostError && /worker 1 lost mid-stream/.test(err.message),
  );
  assert.equal(got.length, 5);
});

/** `mocker`'s answers cut after `after` outputs as a worker shutting down cuts them: a bare `cancelled` finish, then (unless `clean`) its engine-shutdown error. */
function shuttingDown(id: number, after: number, clean = false): WorkerInstance {
  return {
    id: BigInt(id),
    client: {
      async *generate(req: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
        let sent = 0;
        for await (const out of mocker.generate(req, ctx)) {
          yield out;
          if (++sent >= after) break;
        }
        yield { token_ids: [], finish_reason: 'cancelled' };
        if (!clean) throw new WorkerLostError('worker lost: EngineShutdown: the worker shut down before the request completed', BigInt(id));
      },
    },
  };
}

test('a worker shutdown (bare cancelled finish, then its engine-shutdown error) moves the request; the client never sees cancelled', async () => {
  const expected = await collect(mocker, REQ);
  for (const pushed of [false, true]) {
    const r = router(1);
    r.setInstances([shuttingDown(1, 12), worker(2)]);
    const migrations: MigrationType[] = [];
    const outs: LLMEngineOutput[] = [];
    const ctx: GenerateContext = { requestId: 's1', signal: new AbortController().signal, migrated: (type) => migrations.push(type) };
    if (pushed) await drainStream(r.generate(REQ, ctx), (out) => void outs.push(out));
    else for await (const out of r.generate(REQ, ctx)) outs.push(out);
    assert.deepEqual(ids(outs), ids(expected), pushed ? 'pushed' : 'pulled');
    assert.ok(outs.every((o) => o.finish_reason !== 'cancelled'));
    assert.equal(outs.at(-1)!.finish_reason, 'length');
    assert.deepEqual(migrations, ['ongoing_request']);
  }
});

test('a worker shutdown with no move left ends with its error, not cancelled; a clean cancelled end and a client cancel still end as cancelled', async () => {
  const r = router(0);
  r.setInstances([shuttingDown(1, 5), worker(2)]);
  const got: LLMEngineOutput[] = [];
  await assert.rejects(async () => {
    for await (const out of r.generate(REQ, { requestId: 'z', signal: new AbortController().signal })) got.push(out);
  }, /EngineShutdown/);
  assert.equal(got.length, 5);
  assert.ok(got.every((o) => o.finish_reason !== 'cancelled'));

  const clean = router(1);
  clean.setInstances([shuttingDown(1, 5, true)]);
  for (const pushed of [false, true]) {
    const outs: LLMEngineOutput[] = [];
    const ctx: GenerateContext = { requestId: 'c2', signal: new AbortController().signal };
    if (pushed) await drainStream(clean.generate(REQ, ctx), (out) => void outs.push(out));
    else for await (const out of clean.generate(REQ, ctx)) outs.push(out);
    assert.equal(outs.length, 6);
    assert.equal(outs.at(-1)!.finish_reason, 'cancelled');
  }

  const abort = new AbortController();
  const cancelled = router(1);
  cancelled.setInstances([shuttingDown(1, 5)]);
  const seen: LLMEngineOutput[] = [];
  const moved: MigrationType[] = [];
  try {
    for await (const out of cancelled.generate(REQ, { requestId: 'c3', signal: abort.signal, migrated: (t) => moved.push(t) })) {
      seen.push(out);
      if (seen.length === 5) abort.abort();
    }
  } catch {
    // The engine-shutdown error after the client's cancel ends the stream: nothing moves either way.
  }
  assert.equal(seen.at(-1)!.finish_reason, 'cancelled', "the client's own cancel is not held");
  assert.deepEqual(moved, []);
});
