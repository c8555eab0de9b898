// The HTML report opens in headless Chromium with no network and draws both plots from the
// results embedded in it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { serveInProcess } from '../../support/in-process.js';
import { bench } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('--html writes one file holding the data and uPlot; Chromium draws the plots offline', { timeout: 120_000 }, async (t) => {
  const { service, baseUrl } = await serveInProcess(['--speedup-ratio', '1000']);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-html-')), 'report.html');
  try {
    await bench(['--url', baseUrl, '--concurrency', '1,2,4', '--requests', '8', '--output-tokens', '8', '--input-tokens', '16', '--html', file]);
  } finally {
    await service.stop();
  }
  const html = readFileSync(file, 'utf8');
  assert.match(html, /<script id="bench-data" type="application\/json">\{"tool":"dynamo-ts bench"/);
  assert.ok(html.includes('uPlot'), 'the library is inlined');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/, 'nothing is loaded from elsewhere');

  if (!existsSync(CHROMIUM)) {
    t.skip(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) outside.push(req.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (window as unknown as { benchPlotsDrawn?: boolean }).benchPlotsDrawn === true, undefined, { timeout: 30_000 });
    assert.deepEqual(errors, []);
    assert.deepEqual(outside, []);
    assert.deepEqual(await page.$$eval('.u-title', (titles) => titles.map((el) => el.textContent)), ['Latency vs output throughput', 'TTFT distribution']);
    // Each plot's canvas has coloured (series) pixels, not only axes and background.
    const painted = await page.$$eval('canvas', (canvases) => canvases.map((canvas) => {
      const { data } = (canvas as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0 && (Math.abs(data[i]! - data[i + 1]!) > 40 || Math.abs(data[i + 1]! - data[i + 2]!) > 40)) coloured++;
      return coloured;
    }));
    assert.equal(painted.length, 2);
    for (const count of painted) assert.ok(count > 50, `coloured pixels per plot: ${painted.join(', ')}`);
    assert.equal(await page.locator('#runs tr').count(), 4, 'a header and one row per run');
  } finally {
    await browser.close();
  }
});
