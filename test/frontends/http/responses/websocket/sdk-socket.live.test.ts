// WebSocket mode through the openai SDK's own client (`openai/resources/responses/ws`), as its
// users call it, against `serve --mocker-output echo-last-user` with API keys: turns chained with
// `store: false`, a warm-up, an unknown previous response, and a refused key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ResponsesStreamMessage } from 'openai/resources/responses/internal-base';
import type { Response, ResponsesClientEvent, ResponsesServerEvent } from 'openai/resources/responses/responses';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { serveInProcess } from '../../../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const KEY = 'key-socket';

type Served = Awaited<ReturnType<typeof serveInProcess>>;

/** The SDK's messages, read from one iterator made before anything is sent. */
class Messages {
  private readonly iterator: AsyncIterator<ResponsesStreamMessage>;

  constructor(ws: ResponsesWS) {
    this.iterator = ws.stream();
  }

  async next(): Promise<ResponsesStreamMessage> {
    const { value, done } = await this.iterator.next();
    assert.ok(!done, 'the stream ended');
    return value;
  }

  /** The server events of one response, up to its final event; the error when one comes instead. */
  async answer(): Promise<{ events: ResponsesServerEvent[]; error?: unknown }> {
    const events: ResponsesServerEvent[] = [];
    for (;;) {
      const message = await this.next();
      if (message.type === 'error') return { events, error: message.error.error };
      if (message.type !== 'message') continue;
      events.push(message.message);
      if (['response.completed', 'response.incomplete', 'response.failed'].includes(message.message.type)) return { events };
    }
  }

  async response(): Promise<Response> {
    const { events, error } = await this.answer();
    assert.equal(error, undefined, JSON.stringify(error));
    const last = events[events.length - 1]!;
    assert.ok(last.type === 'response.completed', last.type);
    return last.response;
  }
}

/** Runs `use` on a new connection of `client`'s, closed after. */
async function onSocket(client: OpenAI, use: (ws: ResponsesWS, messages: Messages) => Promise<void>): Promise<void> {
  const ws = new ResponsesWS(client);
  try {
    await use(ws, new Messages(ws));
  } finally {
    ws.close();
  }
}

const textOf = (response: Response): string =>
  response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => (part.type === 'output_text' ? part.text : '')).join('');

describe('Responses WebSocket mode through the openai SDK', () => {
  let server: Served;
  let client: OpenAI;
  before(async () => {
    server = await serveInProcess(['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000', '--api-key', KEY]);
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: KEY, maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('turns chained with previous_response_id and store: false, the events as streaming hands them over', async () => {
    await onSocket(client, async (ws, messages) => {
      ws.send({ type: 'response.create', model: MODEL, store: false, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Find fizz_buzz()' }] }], tools: [] });
      const { events } = await messages.answer();
      assert.equal(events[0]!.type, 'response.created');
      assert.ok(events.some((e) => e.type === 'response.output_text.delta'));
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      const first = (events[events.length - 1] as OpenAI.Responses.ResponseCompletedEvent).response;
      assert.equal(textOf(first), 'Find fizz_buzz()');

      ws.send({ type: 'response.create', model: MODEL, store: false, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_1', output: 'found it' }, { role: 'user', content: 'and now?' }] });
      const second = await messages.response();
      assert.equal(second.previous_response_id, first.id);
      assert.equal(textOf(second), 'and now?');
      assert.ok(second.usage!.input_tokens > first.usage!.input_tokens);
    });
  });

  test('a warm-up with generate: false, then the turn it prepared', async () => {
    await onSocket(client, async (ws, messages) => {
      // `generate` is in the reference, not yet in the SDK's event type.
      ws.send({ type: 'response.create', model: MODEL, store: false, instructions: 'Be brief.', input: 'warm', generate: false } as ResponsesClientEvent);
      const warm = await messages.response();
      assert.deepEqual(warm.output, []);
      ws.send({ type: 'response.create', model: MODEL, store: false, previous_response_id: warm.id, input: 'hot' });
      assert.equal(textOf(await messages.response()), 'hot');
    });
  });

  test('an unknown previous_response_id reaches the SDK as an error event, and the connection goes on', async () => {
    await onSocket(client, async (ws, messages) => {
      ws.send({ type: 'response.create', model: MODEL, store: false, previous_response_id: 'resp_gone', input: 'x' });
      const { error } = await messages.answer();
      assert.deepEqual(error, {
        type: 'error',
        status: 404,
        error: { type: 'invalid_request_error', code: 'previous_response_not_found', message: "Previous response with id 'resp_gone' not found.", param: 'previous_response_id' },
      });
      ws.send({ type: 'response.create', model: MODEL, store: false, input: 'full context again' });
      assert.equal(textOf(await messages.response()), 'full context again');
    });
  });

  test('a wrong API key is refused at the upgrade', async () => {
    const ws = new ResponsesWS(new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'wrong', maxRetries: 0 }));
    const messages = new Messages(ws);
    const seen: ResponsesStreamMessage[] = [];
    for (let message = await messages.next(); message.type !== 'close'; message = await messages.next()) seen.push(message);
    const error = seen.find((m) => m.type === 'error');
    assert.ok(error?.type === 'error');
    assert.match(error.error.message, /401/);
    assert.ok(!seen.some((m) => m.type === 'open'));
  });
});
