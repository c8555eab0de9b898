import { writeFile } from 'node:fs/promises';
import type { OptionSpec } from './option-spec.js';
import { OPTIONS, type Config } from './option-table.js';

export const REDACTED = '<redacted>';

/** A secret's value as it may be shown: each key replaced, so the dump still says how many there are. */
function shown(spec: OptionSpec, value: unknown): unknown {
  if (spec.secret !== true || value === undefined) return value;
  return Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
}

/**
 * The resolved config as pretty JSON: the camelCase `Config` field names in option-table order
 * (so the output is stable), unset options as `null`, secrets redacted, with a trailing newline.
 */
export function serializeConfig(config: Config): string {
  const fields = config as unknown as Readonly<Record<string, unknown>>;
  const ordered: Record<string, unknown> = {};
  for (const spec of OPTIONS) {
    if (spec.deprecated === undefined) ordered[spec.key] = shown(spec, fields[spec.key]) ?? null;
  }
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** Writes `serializeConfig(config)` to `file` (for --dump-config-to / DYN_DUMP_CONFIG_TO). */
export async function writeConfigDump(file: string, config: Config): Promise<void> {
  await writeFile(file, serializeConfig(config), 'utf8');
}
