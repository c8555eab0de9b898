// Card file checksums: workers publish BLAKE3 checksums of the files their card names; the frontend
// re-checks them and rejects a card whose files do not match.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDefaultModelCard, toCardJson } from '../../src/models/index.js';
import type { Logger } from '../../src/observability/index.js';
import type { EngineClient, LLMEngineOutput } from '../../src/protocols/index.js';
import {
  DistributedRuntime,
  engineHandler,
  fileChecksum,
  namespaceScope,
  verifyFileChecksums,
  withFileChecksums,
} from '../../src/runtime/index.js';
import { eventually } from '../support/in-process.js';
import { IN_PROCESS_RUNTIME, startWatchingFrontend } from '../support/in-process-runtime.js';

const OPTIONS = IN_PROCESS_RUNTIME;

test('BLAKE3 of a file as upstream writes it; a changed file fails verification', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dyn-blake3-'));
  try {
    const file = path.join(dir, 'config.json');
    writeFileSync(file, 'abc');
    // The BLAKE3 test vector for "abc".
    assert.equal(await fileChecksum(file), 'blake3:6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    const card = await withFileChecksums({ display_name: 'm', model_info: { hf_config_json: { path: file, size: 3 } } });
    assert.match(JSON.stringify(card), /"checksum":"blake3:6437b3ac/);
    await verifyFileChecksums(card);
    writeFileSync(file, 'abd');
    await assert.rejects(verifyFileChecksums(card), /config\.json: checksum blake3:[0-9a-f]{64} differs/);
    writeFileSync(file, 'abcd');
    await assert.rejects(verifyFileChecksums(card), /config\.json: size differs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the frontend serves a card whose checksums match and rejects one whose files differ', async () => {
  const errors: string[] = [];
  const logger = {
    info() {},
    warn() {},
    debug() {},
    error: (obj: object, msg: string) => errors.push(`${msg} ${JSON.stringify(obj)}`),
    // Module loggers (router, discovery) are children: they report to the same list.
    child() {
      return logger;
    },
  } as unknown as Logger;
  const ns = `ck-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespace: ns }), logger);
  const echo: EngineClient = {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [1], finish_reason: 'length' };
    },
  };
  const good = await DistributedRuntime.create(OPTIONS);
  const bad = await DistributedRuntime.create(OPTIONS);
  try {
    const card = toCardJson(loadDefaultModelCard());
    const register = async (rt: DistributedRuntime, cardJson: Record<string, unknown>) => {
      const ep = rt.namespace(ns).component('backend').endpoint('generate');
      await ep.serveEndpoint(engineHandler(echo));
      await ep.registerModel(cardJson, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
    };
    await register(good, { ...card, display_name: 'checked' });
    // The worker's tokenizer.json is not the file the frontend would read: a different checksum.
    const tokenizer = (card.tokenizer as { hf_tokenizer_json: Record<string, unknown> }).hf_tokenizer_json;
    await register(bad, { ...card, display_name: 'tampered', tokenizer: { hf_tokenizer_json: { ...tokenizer, checksum: `blake3:${'0'.repeat(64)}` } } });
    await eventually(() => models.has('checked') && errors.length > 0, 10_000, 'one model served, one card rejected');
    assert.ok(!models.has('tampered'));
    assert.match(errors[0]!, /model card rejected.*"model":"tampered".*tokenizer\.json: checksum blake3:[0-9a-f]{64} differs/);
  } finally {
    watcher.stop();
    for (const rt of [good, bad, frontend]) await rt.shutdown();
  }
});
