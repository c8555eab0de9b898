// Completions `prompt` (a string, strings, token ids or lists of token ids), `prompt_embeds`
// (base64) and `suffix`: their shapes, their rules, and the batch size a prompt makes.

import { deserializeError, isUint } from '../json-types.js';
import { fail } from '../validation-failure.js';

const MIN_PROMPT_EMBEDS_BYTES = 100;
const MAX_PROMPT_EMBEDS_BYTES = 10 * 1024 * 1024;
const MAX_SUFFIX_CHARS = 10000;

export function checkPromptShape(prompt: unknown): void {
  if (prompt === undefined || prompt === null || typeof prompt === 'string') return;
  const ok =
    Array.isArray(prompt) &&
    (prompt.every((p) => typeof p === 'string') ||
      prompt.every(isUint) ||
      prompt.every((p) => Array.isArray(p) && p.every(isUint)));
  if (!ok) {
    throw deserializeError(
      'prompt',
      'data did not match any variant: expected a string, an array of strings, an array of token ids or an array of token id arrays',
    );
  }
}

export function checkPromptRules(prompt: unknown, embeds: unknown): void {
  const hasPrompt = prompt !== undefined && prompt !== null;
  if (!hasPrompt && typeof embeds !== 'string') fail("At least one of 'prompt' or 'prompt_embeds' must be provided");
  if (typeof embeds === 'string') {
    checkPromptEmbeds(embeds);
    return;
  }
  if (typeof prompt === 'string') {
    if (prompt === '') fail('Prompt string cannot be empty');
    return;
  }
  const list = prompt as unknown[];
  // An empty array fails as the first variant serde tries: a string array.
  if (list.length === 0) fail('Prompt string array cannot be empty');
  if (typeof list[0] === 'string') {
    list.forEach((p, i) => {
      if (p === '') fail(`Prompt string at index ${i} cannot be empty`);
    });
  } else if (Array.isArray(list[0])) {
    list.forEach((p, i) => {
      if ((p as unknown[]).length === 0) fail(`Prompt integer array at index ${i} cannot be empty`);
    });
  }
}

function checkPromptEmbeds(embeds: string): void {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(embeds) || embeds.length % 4 !== 0) {
    fail('prompt_embeds must be valid base64-encoded data');
  }
  const bytes = Buffer.from(embeds, 'base64').length;
  if (bytes < MIN_PROMPT_EMBEDS_BYTES) {
    fail(`prompt_embeds decoded data must be at least ${MIN_PROMPT_EMBEDS_BYTES} bytes, got ${bytes} bytes`);
  }
  if (bytes > MAX_PROMPT_EMBEDS_BYTES) fail(`prompt_embeds decoded data exceeds maximum size of 10MB, got ${bytes} bytes`);
}

/** Number of prompts in a batch: string[] and number[][] are batches; a string or number[] is one. */
export function promptBatchSize(prompt: unknown): number {
  if (!Array.isArray(prompt) || prompt.length === 0) return 1;
  return typeof prompt[0] === 'string' || Array.isArray(prompt[0]) ? prompt.length : 1;
}

export function checkSuffix(suffix: unknown): void {
  if (typeof suffix === 'string' && suffix.length > MAX_SUFFIX_CHARS) fail(`Suffix is too long, maximum ${MAX_SUFFIX_CHARS} characters`);
}
