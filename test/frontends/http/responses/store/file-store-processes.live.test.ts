// The file response store written and read by several processes at once: every read finds a whole
// response or none (never a torn or foreign file), and when they are done the directory holds no
// more than the bound and no temporary file.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WRITER = fileURLToPath(new URL('../../../../support/file-store-writer.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'response-store-processes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function runWriter(index: number, writers: number, count: number, maxEntries: number): Promise<{ found: number; wrong: string[] }> {
  const child = fork(WRITER, [dir, String(index), String(writers), String(count), String(maxEntries)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { found: number; wrong: string[] }) : reject(new Error(`writer ${index} exited ${code}: ${out}`))));
  });
}

test('four processes storing and reading at once: whole responses only, and the bound holds', async () => {
  const writers = 4;
  const maxEntries = 40;
  const results = await Promise.all(Array.from({ length: writers }, (_, i) => runWriter(i, writers, 150, maxEntries)));
  assert.deepEqual(results.flatMap((r) => r.wrong), []);
  assert.ok(results.reduce((n, r) => n + r.found, 0) > 0, 'some reads found a response');
  const left = readdirSync(dir);
  assert.ok(left.filter((name) => name.endsWith('.json')).length <= maxEntries, `${left.length} files left`);
  assert.deepEqual(left.filter((name) => !name.endsWith('.json')), []);
});
