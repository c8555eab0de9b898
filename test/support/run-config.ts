import { parseCommandLine, type Config } from '../../src/config/index.js';

/** The configuration a command line runs with; throws for a command line that does not run (help, version, an error). */
export function runConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): Config {
  const parsed = parseCommandLine(argv, env);
  if (parsed.kind !== 'run') throw new Error(`expected a run command: ${argv.join(' ')}`);
  return parsed.config;
}
