// Detokenizes one choice's generated ids as they arrive. A token whose bytes are complete UTF-8
// on their own (nearly all of them) is answered from the table's cached text without touching the
// bytes; only tokens that carry part of a multi-byte character go through the byte decoder, which
// holds the unfinished character back until later tokens complete it.
//
// No leading-space rule is applied: generated text continues the prompt, so a Metaspace "▁" on
// the first generated token is a real space, exactly as an incremental decode that starts from
// the prompt's ids would give.

import type { TokenTable } from './token-table.js';
import { Utf8StreamDecoder } from './utf8-stream.js';
import { InternalError } from '../../protocols/index.js';

export class IncrementalDecoder {
  private readonly utf8 = new Utf8StreamDecoder();

  constructor(
    private readonly table: TokenTable,
    private readonly skipSpecialTokens: boolean,
  ) {}

  /**
   * The text completed by this token (possibly ""). Special tokens give "" when skipped, and a
   * character split around them still completes, as in a whole-sequence decode.
   * @throws InternalError ("decode error: ...") for an id the model's vocabulary does not have.
   */
  push(id: number): string {
    const table = this.table;
    if (!table.has(id)) {
      if (Number.isInteger(id) && id >= 0 && id < table.vocabSize) return '';
      throw new InternalError(`decode error: token id ${id} is outside the vocabulary (size ${table.vocabSize})`);
    }
    if (this.skipSpecialTokens && table.isSpecial(id)) return '';
    if (this.utf8.idle) {
      const text = table.tokenText(id);
      if (text !== null) return text;
    }
    return this.utf8.decode(table.pool, table.offsets[id]!, table.offsets[id + 1]!);
  }

  /** Ends the sequence: bytes of a character that never completed come out as U+FFFD. */
  flush(): string {
    return this.utf8.flush();
  }
}
