import assert from 'node:assert/strict';
import { ConfigError, parseCommandLine, type CliResult } from '../../src/config/index.js';

export type Env = Record<string, string | undefined>;
export type RunResult = Extract<CliResult, { kind: 'run' }>;

export function run(argv: string[], env: Env = {}): RunResult {
  const result = parseCommandLine(argv, env);
  assert.equal(result.kind, 'run');
  return result as RunResult;
}

/** Asserts that parsing fails with a ConfigError (exit code 2) whose message matches. */
export function assertConfigError(argv: string[], env: Env, expected: string | RegExp): ConfigError {
  try {
    parseCommandLine(argv, env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.equal(error.exitCode, 2);
    if (typeof expected === 'string') assert.equal(error.message, expected);
    else assert.match(error.message, expected);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(argv)} to fail`);
}
