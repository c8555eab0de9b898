// --dyn-debug-perf: one info record per generating request with its preprocessing timings.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { pino } from 'pino';
import type { HttpService } from '../../../src/frontends/http/index.js';
import type { PreprocessedRequest } from '../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../support/http-with-engines.js';
import { helloWorldEngine } from '../../support/scripted-engines.js';

function capturingLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

describe('--dyn-debug-perf', () => {
  const seen: PreprocessedRequest[] = [];
  let withPerf: { http: HttpService; baseUrl: string; fetch: typeof fetch };
  let withoutPerf: { http: HttpService; baseUrl: string; fetch: typeof fetch };
  const perfLines: Record<string, unknown>[] = [];
  const quietLines: Record<string, unknown>[] = [];

  before(async () => {
    withPerf = await injectedHttpWithEngines({ m: helloWorldEngine(seen) }, { debugPerf: true, logger: capturingLogger(perfLines) });
    withoutPerf = await injectedHttpWithEngines({ m: helloWorldEngine(seen) }, { logger: capturingLogger(quietLines) });
  });
  after(async () => {
    await withPerf.http.shutdown();
    await withoutPerf.http.shutdown();
  });

  it('logs template, tokenize, routing and first-output timings per request', async () => {
    const client = new OpenAI({ baseURL: `${withPerf.baseUrl}/v1`, apiKey: 'x', fetch: withPerf.fetch });
    const answer = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hello there' }] });
    assert.ok(answer.choices[0]?.message.content);
    const record = perfLines.find((line) => line.msg === 'preprocessing timings');
    assert.ok(record, JSON.stringify(perfLines));
    assert.equal(record.level, 30);
    for (const field of ['template_ms', 'tokenize_ms', 'route_ms', 'first_output_ms']) {
      assert.equal(typeof record[field], 'number', field);
      assert.ok((record[field] as number) >= 0, field);
    }
    assert.ok((record.template_ms as number) > 0);
    assert.equal(record.prompt_tokens, seen.at(-1)?.token_ids.length);
    assert.match(String(record.request_id), /.+/);
  });

  it('logs nothing of the kind when off', async () => {
    const client = new OpenAI({ baseURL: `${withoutPerf.baseUrl}/v1`, apiKey: 'x', fetch: withoutPerf.fetch });
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hello there' }] });
    assert.equal(quietLines.filter((line) => line.msg === 'preprocessing timings').length, 0);
  });
});
