// Text → token ids with Hugging Face's native tokenizer (the same Rust core upstream uses).
// Encoding is async and runs on the libuv thread pool, off the event loop.

import { Tokenizer } from 'tokenizers';

interface PendingEncode {
  text: string;
  resolve(ids: number[]): void;
  reject(err: unknown): void;
}

/** Longer texts are encoded alone, so one long prompt does not hold back a batch of short ones. */
const MAX_BATCHED_CHARS = 8192;

export class HfTokenizer {
  private readonly native: Tokenizer;
  /** Short texts waiting for the end of this event-loop turn, by addSpecialTokens (0/1). */
  private readonly pending: [PendingEncode[], PendingEncode[]] = [[], []];
  private flushScheduled = false;

  constructor(tokenizerJsonPath: string) {
    this.native = Tokenizer.fromFile(tokenizerJsonPath);
  }

  /**
   * Chat prompts are encoded without the post-processor's special tokens: the template already
   * wrote BOS and friends as text, and added special tokens in that text still map to their ids.
   * Completions prompts are raw text, so they get the post-processor's tokens (Llama's BOS; Qwen
   * adds none), as upstream and vLLM do. NUL bytes are stripped first, as upstream does.
   *
   * Short texts requested in the same event-loop turn go to the thread pool as one `encodeBatch`:
   * one task and one hop back instead of one per request, which under load costs the event loop
   * a third of the time per text (bench/RESULTS.md, gRPC section).
   */
  encode(text: string, addSpecialTokens: boolean): Promise<number[]> {
    const clean = text.includes('\0') ? text.replaceAll('\0', '') : text;
    if (clean.length > MAX_BATCHED_CHARS) return this.encodeOne(clean, addSpecialTokens);
    return new Promise((resolve, reject) => {
      this.pending[addSpecialTokens ? 1 : 0].push({ text: clean, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  tokenToId(token: string): number | null {
    return this.native.tokenToId(token);
  }

  decode(ids: number[], skipSpecialTokens: boolean): Promise<string> {
    return this.native.decode(ids, skipSpecialTokens);
  }

  private async encodeOne(text: string, addSpecialTokens: boolean): Promise<number[]> {
    const encoding = await this.native.encode(text, null, { addSpecialTokens });
    return encoding.getIds();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    for (const flag of [0, 1] as const) {
      const batch = this.pending[flag];
      if (batch.length === 0) continue;
      this.pending[flag] = [];
      void this.encodeBatch(batch, flag === 1);
    }
  };

  private async encodeBatch(batch: PendingEncode[], addSpecialTokens: boolean): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0]!;
      await this.encodeOne(only.text, addSpecialTokens).then(only.resolve, only.reject);
      return;
    }
    let encodings;
    try {
      encodings = await this.native.encodeBatch(
        batch.map((p) => p.text),
        { addSpecialTokens },
      );
    } catch {
      // One text's failure must not fail the others: retry each alone for its own result.
      for (const p of batch) void this.encodeOne(p.text, addSpecialTokens).then(p.resolve, p.reject);
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(encodings[i]!.getIds());
  }
}
