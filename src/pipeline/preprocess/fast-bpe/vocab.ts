// The BPE vocab of tokenizer.json, looked up in the parsed object itself: copying 150k entries
// into a Map would cost ~130 ms per load for no faster lookups. Own properties only, so "toString"
// or "constructor" in a text never finds Object.prototype.

export class Vocab {
  constructor(readonly tokens: Readonly<Record<string, number>>) {}

  idOf(token: string): number | undefined {
    return Object.hasOwn(this.tokens, token) ? this.tokens[token] : undefined;
  }

  /** Tokens in the vocab (the native loader numbers new added tokens from here). */
  get size(): number {
    return Object.keys(this.tokens).length;
  }
}
