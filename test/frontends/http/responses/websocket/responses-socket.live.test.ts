// WebSocket mode on /v1/responses through a raw `ws` client, against `serve --mocker-output
// echo-last-user`: the exact events of a response, several responses on one connection,
// `store: false` continuation from the connection's own responses, warm-up (`generate: false`),
// `previous_response_not_found`, eviction after a failed continuation, bad events answered with
// error events on a connection that stays usable, auth on the upgrade, the message-size and idle
// limits, and the close on shutdown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { MetricsRegistry } from '../../../../../src/observability/index.js';
import { sseEvents } from '../../../../support/sse-events.js';
import { httpWithEngines } from '../../../../support/http-with-engines.js';
import { postJson, serveInProcess } from '../../../../support/in-process.js';
import { failingAfterHelloEngine, helloWorldEngine } from '../../../../support/scripted-engines.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const ECHO = ['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000'];
/** Generous: the machine running the tests is busy. */
const WAIT_MS = 20_000;

type Json = Record<string, any>;
type Served = Awaited<ReturnType<typeof serveInProcess>>;

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** A raw client: every message it receives, read in order. */
class RawClient {
  private readonly received: Json[] = [];
  private readonly waiters: (() => void)[] = [];
  private read = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as Json);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async open(baseUrl: string, headers: Record<string, string> = {}): Promise<RawClient> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/responses`, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  send(event: Json | string): void {
    this.socket.send(typeof event === 'string' ? event : JSON.stringify(event));
  }

  async next(): Promise<Json> {
    const deadline = Date.now() + WAIT_MS;
    while (this.read >= this.received.length) {
      if (Date.now() > deadline) throw new Error('no message came');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.received[this.read++]!;
  }

  /** The events of one response (or the one error event answering an event). */
  async answer(): Promise<Json[]> {
    const events: Json[] = [];
    for (;;) {
      const event = await this.next();
      events.push(event);
      if (TERMINAL.has(event.type)) return events;
    }
  }

  /** The final Response object of the next answer; fails on an error event. */
  async response(): Promise<Json> {
    const events = await this.answer();
    const last = events[events.length - 1]!;
    assert.notEqual(last.type, 'error', JSON.stringify(last));
    return last.response as Json;
  }

  close(): void {
    this.socket.close();
  }
}

const create = (fields: Json): Json => ({ type: 'response.create', model: MODEL, ...fields });
/** A string input as the item it is kept as. */
const said = (text: string): Json => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const outputText = (response: Json): string => (response.output as Json[]).flatMap((item) => (item.content ?? []) as Json[]).map((part) => part.text).join('');

/** The upgrade refused: the HTTP status it answered. */
function refusedStatus(baseUrl: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/responses`, { headers });
    // Handling the refusal makes aborting its request ours.
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
  });
}

describe('Responses WebSocket mode', () => {
  let server: Served;
  let client: RawClient;
  before(async () => {
    server = await serveInProcess(ECHO);
    client = await RawClient.open(server.baseUrl);
  });
  after(async () => {
    client.close();
    await server.service.stop();
  });

  test('a response.create is answered with the events a streamed POST sends, sequence numbers from 0', async () => {
    client.send(create({ input: 'hello socket', store: false }));
    const events = await client.answer();
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...events.filter((e) => e.type === 'response.output_text.delta').map(() => 'response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.ok(events.some((e) => e.type === 'response.output_text.delta'));
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    const done = events[events.length - 1]!.response as Json;
    assert.match(done.id, /^resp_/);
    assert.equal(done.status, 'completed');
    assert.equal(done.store, false);
    assert.equal(outputText(done), 'hello socket');
    assert.equal(events[0]!.response.id, done.id);
    assert.equal(events[0]!.response.status, 'in_progress');

    // The same body POSTed with stream: true gives the same events.
    const res = await postJson(server.baseUrl, '/v1/responses', { model: MODEL, input: 'hello socket', store: false, stream: true });
    const posted = sseEvents(await res.text()).map((e) => e.data);
    assert.deepEqual(posted.map((e) => e.type), events.map((e) => e.type));
    const { id: _postedId, created_at: _postedAt, completed_at: _postedDone, output: postedOutput, ...postedRest } = posted[posted.length - 1]!.response as Json;
    const { id: _id, created_at: _at, completed_at: _done, output, ...rest } = done;
    assert.deepEqual(rest, postedRest);
    assert.equal(outputText({ output }), outputText({ output: postedOutput }));
  });

  test('several responses in sequence on one connection, sent before the first is answered', async () => {
    for (const input of ['one', 'two', 'three']) client.send(create({ input, store: false }));
    const answers = [await client.response(), await client.response(), await client.response()];
    assert.deepEqual(answers.map(outputText), ['one', 'two', 'three']);
    assert.equal(new Set(answers.map((r) => r.id)).size, 3);
  });

  test('store: false continues from the connection’s own last responses', async () => {
    client.send(create({ input: 'first turn', store: false }));
    const first = await client.response();
    client.send(create({ input: 'second turn', store: false, previous_response_id: first.id }));
    const second = await client.response();
    assert.equal(second.previous_response_id, first.id);
    assert.equal(outputText(second), 'second turn');
    client.send(create({ input: 'third turn', store: false, previous_response_id: second.id }));
    const third = await client.response();

    // The prompt the chain made is the conversation written out in full.
    const written = [said('first turn'), ...first.output, said('second turn'), ...second.output, said('third turn')];
    const count = await postJson(server.baseUrl, '/v1/responses/input_tokens', { model: MODEL, input: written });
    assert.equal(third.usage.input_tokens, ((await count.json()) as Json).input_tokens);
    client.send(create({ input: 'third turn', store: false }));
    assert.ok((await client.response()).usage.input_tokens < third.usage.input_tokens);
    // Not stored: the POST does not know it.
    const posted = await postJson(server.baseUrl, '/v1/responses', { model: MODEL, input: 'x', previous_response_id: second.id });
    assert.equal(posted.status, 404);
  });

  test('a stored response continues on another connection; a store: false one does not', async () => {
    client.send(create({ input: 'kept' }));
    const kept = await client.response();
    client.send(create({ input: 'not kept', store: false }));
    const notKept = await client.response();
    const other = await RawClient.open(server.baseUrl);
    try {
      other.send(create({ input: 'continued', store: false, previous_response_id: kept.id }));
      assert.equal(outputText(await other.response()), 'continued');
      other.send(create({ input: 'continued', store: false, previous_response_id: notKept.id }));
      const [error] = await other.answer();
      assert.equal(error!.type, 'error');
      assert.equal(error!.error.code, 'previous_response_not_found');
    } finally {
      other.close();
    }
  });

  test('generate: false prepares a response with no output that a next turn continues', async () => {
    client.send(create({ input: 'warm me up', instructions: 'Be brief.', store: false, generate: false }));
    const events = await client.answer();
    assert.deepEqual(events.map((e) => e.type), ['response.created', 'response.in_progress', 'response.completed']);
    assert.deepEqual(events.map((e) => e.sequence_number), [0, 1, 2]);
    const warm = events[2]!.response as Json;
    assert.equal(warm.status, 'completed');
    assert.deepEqual(warm.output, []);
    assert.ok(warm.usage.input_tokens > 0);
    assert.equal(warm.usage.output_tokens, 0);

    client.send(create({ input: 'go', store: false, previous_response_id: warm.id }));
    const turn = await client.response();
    assert.equal(outputText(turn), 'go');
    const count = await postJson(server.baseUrl, '/v1/responses/input_tokens', {
      model: MODEL,
      input: [said('warm me up'), said('go')],
    });
    assert.equal(turn.usage.input_tokens, ((await count.json()) as Json).input_tokens);
  });

  test('an unknown previous_response_id is previous_response_not_found, in the reference’s error shape', async () => {
    client.send(create({ input: 'x', store: false, previous_response_id: 'resp_unknown' }));
    const events = await client.answer();
    assert.deepEqual(events, [
      {
        type: 'error',
        status: 404,
        error: { type: 'invalid_request_error', code: 'previous_response_not_found', message: "Previous response with id 'resp_unknown' not found.", param: 'previous_response_id' },
      },
    ]);
  });

  test('a failed continuation evicts the response it continued', async () => {
    client.send(create({ input: 'base', store: false }));
    const base = await client.response();
    client.send(create({ input: 'bad', store: false, previous_response_id: base.id, max_output_tokens: 'lots' }));
    const [failed] = await client.answer();
    assert.equal(failed!.type, 'error');
    assert.equal(failed!.status, 400);
    assert.match(failed!.error.message, /max_output_tokens/);
    client.send(create({ input: 'retry', store: false, previous_response_id: base.id }));
    const [gone] = await client.answer();
    assert.equal(gone!.error.code, 'previous_response_not_found');
  });

  test('bad events are error events naming what is wrong, and the connection stays usable', async () => {
    const cases: [Json | string, RegExp, string | null][] = [
      ['{not json', /not valid JSON/, null],
      [{ type: 'response.cancel' }, /Unsupported event type "response.cancel"/, 'type'],
      [{ model: MODEL, input: 'x' }, /Unsupported event type undefined/, 'type'],
      [create({ input: 'x', generate: 'no' }), /`generate` must be a boolean/, 'generate'],
      [create({ input: 'x', temperature: 'hot' }), /temperature/, null],
      [create({ input: 'x', surprise: true }), /Unsupported parameter\(s\): `surprise`/, null],
      [create({ input: [] }), /`input` cannot be empty/, null],
    ];
    for (const [event, message, param] of cases) {
      client.send(event);
      const [error] = await client.answer();
      assert.equal(error!.type, 'error', JSON.stringify(event));
      assert.equal(error!.status, 400);
      assert.equal(error!.error.type, 'invalid_request_error');
      assert.match(error!.error.message, message);
      assert.equal(error!.error.param, param);
    }
    client.send(create({ input: 'x', model: 'no-such-model' }));
    const [unknown] = await client.answer();
    assert.equal(unknown!.status, 404);
    client.send(create({ input: 'still here', store: false, stream: true }));
    assert.equal(outputText(await client.response()), 'still here');
  });

  test('a GET that is no upgrade is still 405', async () => {
    const res = await fetch(`${server.baseUrl}/v1/responses`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('Responses WebSocket mode: a failing response, a draining service', () => {
  let http: Awaited<ReturnType<typeof httpWithEngines>>['http'];
  let baseUrl: string;
  const metrics = new MetricsRegistry();
  before(async () => {
    ({ http, baseUrl } = await httpWithEngines({ scripted: helloWorldEngine([]), failing: failingAfterHelloEngine() }, { metrics }));
  });
  after(() => http.shutdown());

  test('fails with response.failed, without the error’s text, and evicts the response it continued', async () => {
    const client = await RawClient.open(baseUrl);
    try {
      client.send({ type: 'response.create', model: 'scripted', input: 'hi', store: false });
      const base = await client.response();
      client.send({ type: 'response.create', model: 'failing', input: 'hi', store: false, previous_response_id: base.id });
      const events = await client.answer();
      const last = events[events.length - 1]!;
      assert.equal(last.type, 'response.failed');
      assert.equal(last.response.status, 'failed');
      assert.doesNotMatch(JSON.stringify(events), /secret/);
      client.send({ type: 'response.create', model: 'scripted', input: 'again', store: false, previous_response_id: base.id });
      const [gone] = await client.answer();
      assert.equal(gone!.error.code, 'previous_response_not_found');
      // Counted as the POST's streams are.
      const rendered = await metrics.render();
      assert.match(rendered, /requests_total\{model="scripted",endpoint="responses",request_type="stream",status="success"/);
      assert.match(rendered, /requests_total\{model="failing",endpoint="responses",request_type="stream",status="error"/);
    } finally {
      client.close();
    }
  });

  test('a draining service answers events with a 503 error event and refuses new upgrades with 503', async () => {
    const client = await RawClient.open(baseUrl);
    try {
      http.beginDraining();
      client.send({ type: 'response.create', model: 'scripted', input: 'hi', store: false });
      const [error] = await client.answer();
      assert.equal(error!.type, 'error');
      assert.equal(error!.status, 503);
      assert.equal(error!.error.type, 'server_error');
      assert.equal(await refusedStatus(baseUrl), 503);
    } finally {
      client.close();
    }
  });
});

describe('Responses WebSocket mode: API keys, limits, shutdown', () => {
  let server: Served;
  before(async () => {
    server = await serveInProcess([...ECHO, '--api-key', 'key-alice', '--api-key', 'key-bob', '--responses-ws-max-message-mb', '1', '--responses-ws-idle-timeout-secs', '1']);
  });
  after(() => server.service.stop());

  test('the upgrade takes the API key as the POST does: 401 before any socket without one, or with a wrong one', async () => {
    assert.equal(await refusedStatus(server.baseUrl), 401);
    assert.equal(await refusedStatus(server.baseUrl, { authorization: 'Bearer wrong' }), 401);
    const client = await RawClient.open(server.baseUrl, { authorization: 'Bearer key-alice' });
    client.send(create({ input: 'mine' }));
    const mine = await client.response();
    assert.equal(outputText(mine), 'mine');
    client.close();
    // A stored response stays its key's own.
    const bob = await RawClient.open(server.baseUrl, { 'x-api-key': 'key-bob' });
    bob.send(create({ input: 'x', previous_response_id: mine.id }));
    const [error] = await bob.answer();
    assert.equal(error!.error.code, 'previous_response_not_found');
    bob.close();
  });

  test('a message over --responses-ws-max-message-mb closes the connection with 1009', async () => {
    const client = await RawClient.open(server.baseUrl, { authorization: 'Bearer key-alice' });
    client.send(create({ input: 'x'.repeat(1024 * 1024 + 1) }));
    const { code } = await client.closed;
    assert.equal(code, 1009);
  });

  test('a connection with nothing to do closes after --responses-ws-idle-timeout-secs with 1000', async () => {
    const client = await RawClient.open(server.baseUrl, { authorization: 'Bearer key-alice' });
    const { code, reason } = await client.closed;
    assert.equal(code, 1000);
    assert.match(reason, /idle/);
  });

  test('stopping the service closes open connections with 1001 (going away)', async () => {
    const other = await serveInProcess(ECHO);
    const client = await RawClient.open(other.baseUrl);
    client.send(create({ input: 'before the stop', store: false }));
    await client.response();
    await other.service.stop();
    const { code } = await client.closed;
    assert.equal(code, 1001);
  });
});
