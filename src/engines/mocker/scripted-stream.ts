// A chosen answer instead of seeded random text, for end-to-end tests of what the frontend does
// with known output (tool-call and reasoning parsers, stop strings): the engine emits the script's
// tokens one per decode step, then EOS. What the script is (a fixed text, an echo of the prompt)
// is decided by whoever builds the engine, since it takes a tokenizer the engine does not have.
import type { OutputTokens } from './token-stream.js';

/**
 * The answer to one prompt, as token ids; null to answer with the usual random text. May be async
 * (tokenizing is): the engine awaits it before the request enters the scheduler.
 */
export type OutputScript = (prompt: readonly number[]) => readonly number[] | null | Promise<readonly number[] | null>;

/** The script's tokens, then (when the stop rules let the request run on) the random stream's. */
export class ScriptedStream implements OutputTokens {
  private pos = 0;

  constructor(
    private readonly script: readonly number[],
    private readonly after: OutputTokens,
  ) {}

  get length(): number {
    return this.script.length;
  }

  get midUnit(): boolean {
    return this.pos >= this.script.length && this.after.midUnit;
  }

  nextToken(budget: number): number {
    return this.pos < this.script.length ? this.script[this.pos++]! : this.after.nextToken(budget);
  }

  push(token: number): void {
    this.after.push(token);
  }
}
