// Text → token ids with Hugging Face's native tokenizer (the same Rust core upstream uses).
// Encoding is async and runs on the libuv thread pool, off the event loop.

import { Tokenizer } from 'tokenizers';

export class HfTokenizer {
  private readonly native: Tokenizer;

  constructor(tokenizerJsonPath: string) {
    this.native = Tokenizer.fromFile(tokenizerJsonPath);
  }

  /**
   * Chat prompts are encoded without the post-processor's special tokens: the template already
   * wrote BOS and friends as text, and added special tokens in that text still map to their ids.
   * Completions prompts are raw text, so they get the post-processor's tokens (Llama's BOS; Qwen
   * adds none), as upstream and vLLM do. NUL bytes are stripped first, as upstream does.
   */
  async encode(text: string, addSpecialTokens: boolean): Promise<number[]> {
    const clean = text.includes('\0') ? text.replaceAll('\0', '') : text;
    const encoding = await this.native.encode(clean, null, { addSpecialTokens });
    return encoding.getIds();
  }

  tokenToId(token: string): number | null {
    return this.native.tokenToId(token);
  }

  decode(ids: number[], skipSpecialTokens: boolean): Promise<string> {
    return this.native.decode(ids, skipSpecialTokens);
  }
}
