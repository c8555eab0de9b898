// `nvext`, Dynamo's request extension: its keys and their types as serde parses them, the rule on
// `extra_fields`, and what a deployment with nvext disabled still honours of it.

import type { NvExt } from '../../../protocols/index.js';
import { backtickList, describeValue, isObject, kindMismatch, present } from '../json-types.js';
import { fail } from '../validation-failure.js';
import { NVEXT_FIELDS } from './fields.js';

/** `nvext` as serde parses it: unknown keys rejected, listing the accepted ones. */
export function parseNvext(value: unknown): NvExt | null {
  if (!present(value)) return null;
  if (!isObject(value)) fail(`invalid nvext: invalid type: ${describeValue(value)}, expected struct NvExt`);
  const names = Object.keys(NVEXT_FIELDS);
  for (const [key, v] of Object.entries(value)) {
    const kind = NVEXT_FIELDS[key];
    if (kind === undefined) fail(`invalid nvext: unknown field \`${key}\`, expected one of ${backtickList(names)}`);
    const mismatch = kindMismatch(v, kind);
    if (mismatch !== null) fail(`invalid nvext: \`${key}\`: ${mismatch}`);
  }
  const upload = value.metadata_upload;
  if (isObject(upload)) {
    for (const key of Object.keys(upload)) {
      if (key !== 'url') fail(`invalid nvext: unknown field \`${key}\`, expected \`url\``);
    }
    if (typeof upload.url !== 'string' || upload.url.trim() === '') fail('invalid nvext: `metadata_upload.url` cannot be empty');
  }
  return value as NvExt;
}

/** `nvext.extra_fields=["completion_token_ids"]` only makes sense with one choice. */
export function checkCompletionTokenIdsChoice(choices: number, nvext: NvExt | null): void {
  if (choices !== 1 && nvext?.extra_fields?.includes('completion_token_ids')) {
    fail('`nvext.extra_fields=["completion_token_ids"]` requires exactly one generated choice');
  }
}

/** The nvext a deployment honours: all of it, or with nvext disabled only its cache_salt. */
export function honouredNvext(nvext: NvExt | null, enabled: boolean): NvExt | null {
  if (enabled || nvext === null) return nvext;
  return nvext.cache_salt ? { cache_salt: nvext.cache_salt } : null;
}
