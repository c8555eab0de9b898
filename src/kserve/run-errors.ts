// How the inference paths report a failed step, in upstream's words (reference/kserve.md §7);
// the tensor and completions paths share them.

import { InternalError, isDynamoError, ValidationError, type DynamoError } from '../protocols/index.js';

/** The text of anything thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A rejected request reads `Failed to parse request: ...`; other errors pass unchanged. */
export function parseFailure(err: unknown): unknown {
  return isDynamoError(err) && err.kind === 'validation' ? new ValidationError(`Failed to parse request: ${err.message}`) : err;
}

/**
 * An engine that failed to start: errors with a status of their own (unavailable, overloaded, ...)
 * keep it; the rest become INTERNAL `<context>: <text>`.
 */
export function generateFailure(context: string, err: unknown): DynamoError {
  if (isDynamoError(err) && err.kind !== 'internal') return err;
  return new InternalError(`${context}: ${errorText(err)}`);
}

/** A unary answer that could not be folded out of the run's output. */
export function foldFailure(text: string): InternalError {
  return new InternalError(`Failed to fold completions stream: ${text}`);
}
