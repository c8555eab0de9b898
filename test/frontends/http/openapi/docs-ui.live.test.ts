// Opens /docs in a real headless Chromium and checks that Swagger UI renders the API's operations.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { serveInProcess } from '../../../support/in-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Flags for a sandbox-less CI box with no network: nothing may reach out.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The operations a user must find in the UI, as `METHOD path`. Extend it with each route family. */
const EXPECTED_OPERATIONS = [
  'POST /v1/chat/completions',
  'POST /v1/completions',
  'POST /v1/responses',
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'POST /v1/responses/input_tokens',
  'POST /v1/responses/compact',
  'GET /v1/responses/{id}',
  'DELETE /v1/responses/{id}',
  'GET /v1/responses/{id}/input_items',
  'POST /v1/responses/{id}/cancel',
  'POST /v1/embeddings',
  'POST /v1/images/generations',
  'GET /v1/models',
  'POST /tokenize',
  'POST /detokenize',
  'POST /inference/v1/generate',
  'POST /v2/models/{model}/infer',
  'POST /v2/models/{model}/generate_stream',
  'GET /v2/health/ready',
];

test('/docs renders the API operations in headless Chromium', { timeout: 60_000 }, async (t) => {
  if (!existsSync(CHROMIUM)) {
    t.skip(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
    return;
  }
  const { service, baseUrl } = await serveInProcess(['--enable-anthropic-api']);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(baseUrl) && !req.url().startsWith('data:')) outside.push(req.url());
    });
    const response = await page.goto(`${baseUrl}/docs`);
    assert.equal(response?.status(), 200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const operations = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.trim().toUpperCase()} ${path}`;
      }),
    );
    for (const expected of EXPECTED_OPERATIONS) assert.ok(operations.includes(expected), `${expected} in ${operations.join(', ')}`);
    assert.equal(await page.locator('.info .title').first().textContent().then((s) => s?.includes('NVIDIA Dynamo OpenAI Frontend')), true);
    assert.deepEqual(outside, [], 'Swagger UI loads nothing from outside the server');
  } finally {
    await browser.close();
    await service.stop();
  }
});
