// Media content parts over HTTP with the official openai client: a text-only model answers a 400
// naming the part; a model whose template renders images gets them in `multi_modal_data`.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { after, before, describe, test } from 'node:test';
import type { HttpService } from '../../../../src/frontends/http/index.js';
import { loadDefaultModelCard } from '../../../../src/models/index.js';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../../support/http-with-engines.js';
import { VISION_TEMPLATE } from '../../../support/media-templates.js';

const seen: PreprocessedRequest[] = [];
const engine: EngineClient = {
  async *generate(request): AsyncGenerator<LLMEngineOutput> {
    seen.push(request);
    yield { token_ids: [9707], finish_reason: 'stop' };
  },
};

describe('media parts in /v1/chat/completions', () => {
  let http: HttpService;
  let client: OpenAI;
  before(async () => {
    const started = await injectedHttpWithEngines({ 'text-model': engine, 'vision-model': engine }, {}, (name) => {
      const card = loadDefaultModelCard({ displayName: name });
      return name === 'vision-model' ? { ...card, chatTemplates: { default: VISION_TEMPLATE } } : card;
    });
    http = started.http;
    client = new OpenAI({ baseURL: `${started.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0, fetch: started.fetch });
  });
  after(async () => http.shutdown());

  const ask = (model: string) =>
    client.chat.completions.create({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    });

  test('a text-only model: 400 naming the part', async () => {
    await assert.rejects(ask('text-model'), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError, String(err));
      assert.match(err.message, /messages\[0\]\.content\[1\]: this model accepts text only/);
      assert.doesNotMatch(err.message, /UndefinedValue|template/i);
      return true;
    });
  });

  test('a model whose template renders images: the image travels beside the tokens', async () => {
    seen.length = 0;
    const answer = await ask('vision-model');
    assert.equal(answer.choices[0]!.message.content, 'Hello');
    assert.deepEqual(seen[0]!.multi_modal_data, { image_url: [{ Url: 'https://example.com/cat.png' }] });
  });
});
