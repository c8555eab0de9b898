// A tokenizer file's tables built on a thread beforehand (what a frontend does before a discovered
// model goes live) must be the tables the event loop would have built: the same token table, and a
// tokenizer over them that answers as the native core does.

import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { TokenTable } from '../../../src/pipeline/index.js';
import { HfTokenizer, prepareTokenizerFile, tokenizerFile, tokenizerFileLoaded } from '../../../src/pipeline/preprocess/index.js';

const card = loadDefaultModelCard();
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of the default tokenizer at a path no other test loads, so no shared load answers for it. */
function freshCopy(): { json: string; config: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'file-tables-'));
  dirs.push(dir);
  const json = path.join(dir, 'tokenizer.json');
  const config = path.join(dir, 'tokenizer_config.json');
  copyFileSync(card.tokenizerJsonPath, json);
  writeFileSync(config, JSON.stringify({ added_tokens_decoder: { '151700': { content: '<extra_config_token>', special: true } } }));
  return { json, config };
}

/** Texts the fast encoder answers (pieces under its length bound). */
const TEXTS = ['Hello world', '<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n', 'héllo wörld 你好 🙂', '  indented\n\tcode();  ', 'the sea '.repeat(200)];

test('prepared tables equal the ones built on the event loop, and the next load takes them', async () => {
  const { json, config } = freshCopy();
  assert.equal(tokenizerFileLoaded(json), false);
  const prepared = await prepareTokenizerFile({ tokenizerJsonPath: json, tokenizerConfigPath: config });
  assert.deepEqual(prepared.tokenTable.toParts(), TokenTable.fromFile(json, config).toParts());
  assert.equal(prepared.tokenTable.decode([151700], false), '<extra_config_token>');

  const tokenizer = new HfTokenizer(json);
  prepared.release();
  assert.equal(tokenizerFileLoaded(json), true);
  assert.equal(tokenizer.fastEncoderStatus, 'on');
  const native = Tokenizer.fromFile(json);
  for (const text of TEXTS) {
    const want = (await native.encode(text, null, { addSpecialTokens: false })).getIds();
    assert.deepEqual(tokenizer.fastEncoder!.encode(text, false, Infinity), want, text);
    assert.deepEqual(await tokenizer.encode(text, false), want, text);
  }
  assert.ok(tokenizerFile(json).boundaryTokens.some((t) => t.content === '<|im_start|>'));
});

test('tables released before any load are not kept for a later one', async () => {
  const { json } = freshCopy();
  const prepared = await prepareTokenizerFile({ tokenizerJsonPath: json });
  prepared.release();
  // Built from the file again: still right (nothing stale was kept for it).
  const tokenizer = new HfTokenizer(json);
  assert.equal(tokenizer.fastEncoderStatus, 'on');
  assert.deepEqual(await tokenizer.encode('Hello world', false), [9707, 1879]);
});

test('a missing or broken file rejects the preparation with the reading error', async () => {
  const { json } = freshCopy();
  await assert.rejects(prepareTokenizerFile({ tokenizerJsonPath: path.join(path.dirname(json), 'absent.json') }), /ENOENT/);
  writeFileSync(json, '{ not json');
  await assert.rejects(prepareTokenizerFile({ tokenizerJsonPath: json }), /JSON/);
});
