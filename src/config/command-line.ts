import { ConfigError } from './errors.js';
import { renderCommandHelp, renderTopHelp } from './help.js';
import { SUBCOMMANDS, type Subcommand } from './option-spec.js';
import type { Config, ConfigSources } from './option-table.js';
import { resolveConfig } from './resolve.js';
import { scanArgs } from './scan-args.js';
import { closestMatch } from './suggest.js';
import { versionText } from './version.js';

export type CliResult =
  | {
      readonly kind: 'run';
      readonly command: Subcommand;
      readonly config: Config;
      readonly sources: ConfigSources;
      /** Deprecated options that were set and are ignored, and credentials given as flags; log them as warnings. */
      readonly warnings: readonly string[];
    }
  | { readonly kind: 'help' | 'version'; readonly text: string };

const HELP = new Set(['-h', '--help']);
const VERSION = new Set(['-V', '--version']);

/**
 * Parses `dynamo-ts <command> [options]` (argv without node and the script) against `env`.
 * Throws ConfigError (exit code 2) for anything invalid or not built yet.
 */
export function parseCommandLine(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliResult {
  const [first, ...rest] = argv;
  if (first === undefined || HELP.has(first)) return { kind: 'help', text: renderTopHelp() };
  if (VERSION.has(first)) return { kind: 'version', text: versionText() };
  if (first === 'help') return { kind: 'help', text: rest[0] === undefined ? renderTopHelp() : renderCommandHelp(toSubcommand(rest[0])) };
  const command = toSubcommand(first);
  const args = command === 'worker' ? workerArgs(rest) : rest;
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (options.some((arg) => HELP.has(arg))) return { kind: 'help', text: renderCommandHelp(command) };
  if (options.some((arg) => VERSION.has(arg))) return { kind: 'version', text: versionText() };
  const { config, sources, warnings } = resolveConfig(command, scanArgs(command, args), env);
  return { kind: 'run', command, config, sources, warnings };
}

/** The kinds of `dynamo-ts worker <kind>`; one for now, named so more can join. */
export const WORKER_KINDS = ['openai'] as const;

/** `worker openai [options]` → the options; help needs no kind. */
function workerArgs(rest: readonly string[]): readonly string[] {
  const [kind, ...options] = rest;
  if (kind !== undefined && (WORKER_KINDS as readonly string[]).includes(kind)) return options;
  if (kind === undefined || HELP.has(kind)) return rest;
  throw new ConfigError(`'dynamo-ts worker' needs a kind of worker first: ${WORKER_KINDS.join(', ')} (got '${kind}')`);
}

function toSubcommand(word: string): Subcommand {
  if ((SUBCOMMANDS as readonly string[]).includes(word)) return word as Subcommand;
  const expected = `expected a command: ${SUBCOMMANDS.join(', ')}`;
  if (word.startsWith('-')) throw new ConfigError(`${expected}, before option '${word}'`);
  const suggestion = closestMatch(word, SUBCOMMANDS);
  throw new ConfigError(`unknown command '${word}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; ${expected}`);
}
