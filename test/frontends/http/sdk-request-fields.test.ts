// Every request field the official SDKs can send is known to the gateway: implemented, accepted and
// ignored, or refused with its own reason (docs/api-fields.md), never "unsupported parameter". The
// field lists are read from the installed SDKs' type declarations, so an SDK upgrade that adds a
// field fails here until the field is decided.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MESSAGES_FIELDS } from '../../../src/frontends/http/anthropic/request.js';
import { RESPONSES_FIELDS } from '../../../src/frontends/http/responses/request.js';
import { CHAT_FIELDS, COMPLETION_FIELDS } from '../../../src/pipeline/preprocess/validate/index.js';

/** node_modules of the repository (this file runs from dist/test/frontends/http). */
const NODE_MODULES = new URL('../../../../node_modules/', import.meta.url);

/** The top-level members of `interface name {…}` in a package's declaration file. */
function sdkFields(pkg: string, file: string, name: string): string[] {
  const text = readFileSync(new URL(`${pkg}/${file}`, NODE_MODULES), 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  assert.ok(start >= 0, `${name} in ${pkg}/${file}`);
  const body = text.slice(start, text.indexOf('\n}', start));
  const fields = [...body.matchAll(/^ {4}([a-z_]+)\??:/gm)].map((m) => m[1]!);
  assert.ok(fields.length > 5, `${name}: its fields were read`);
  return fields;
}

const CASES: [string, string[], readonly string[]][] = [
  ['chat completions', sdkFields('openai', 'resources/chat/completions/completions.d.ts', 'ChatCompletionCreateParamsBase'), Object.keys(CHAT_FIELDS)],
  ['completions', sdkFields('openai', 'resources/completions.d.ts', 'CompletionCreateParamsBase'), Object.keys(COMPLETION_FIELDS)],
  ['responses', sdkFields('openai', 'resources/responses/responses.d.ts', 'ResponseCreateParamsBase'), RESPONSES_FIELDS],
  ['messages', sdkFields('@anthropic-ai/sdk', 'resources/messages/messages.d.ts', 'MessageCreateParamsBase'), MESSAGES_FIELDS],
];

for (const [api, sent, known] of CASES) {
  test(`${api}: every field the SDK sends is known`, () => {
    const unknown = sent.filter((field) => !known.includes(field));
    assert.deepEqual(unknown, [], `${api} fields to decide (implement, ignore or refuse; docs/api-fields.md)`);
  });
}
