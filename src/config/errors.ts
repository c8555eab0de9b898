/**
 * A bad command line or environment. The message names the offending flag or env var and, where
 * it helps, the accepted values; the caller prints `error: <message>` and exits with `exitCode`.
 */
export class ConfigError extends Error {
  readonly exitCode = 2 as const;

  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
