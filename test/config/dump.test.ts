import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { serializeConfig, writeConfigDump } from '../../src/config/index.js';
import { run } from './helpers.js';

test('serializeConfig round-trips through JSON, unset fields as null', () => {
  const { config } = run(['serve', '--http-port', '9100', '--no-enable-prefix-caching'], { DYN_MODEL_NAME: 'm' });
  const parsed = JSON.parse(serializeConfig(config)) as Record<string, unknown>;
  const fields = config as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed).sort(), Object.keys(fields).sort());
  for (const [key, value] of Object.entries(fields)) assert.deepEqual(parsed[key], value ?? null, key);
  assert.equal(parsed.httpPort, 9100);
  assert.equal(parsed.modelName, 'm');
  assert.equal(parsed.tlsCertPath, null);
});

test('serializeConfig is stable and pretty', () => {
  const { config } = run(['serve']);
  const text = serializeConfig(config);
  assert.equal(serializeConfig(run(['serve']).config), text);
  assert.ok(text.startsWith('{\n  "httpHost": "0.0.0.0",\n  "httpPort": 8000,'));
  assert.ok(text.endsWith('}\n'));
});

test('--dump-config-to is parsed and writeConfigDump writes the JSON', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'dynamo-ts-dump-')), 'config.json');
  const { config } = run(['serve', '--dump-config-to', file]);
  assert.equal(config.dumpConfigTo, file);
  await writeConfigDump(config.dumpConfigTo!, config);
  assert.equal(readFileSync(file, 'utf8'), serializeConfig(config));
  assert.equal(run(['serve'], { DYN_DUMP_CONFIG_TO: file }).config.dumpConfigTo, file);
});
