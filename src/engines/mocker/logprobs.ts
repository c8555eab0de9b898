// Deterministic log probabilities for the mocker's tokens: the sampled token is the most likely one
// (rank 1) and the alternatives are other words of the vocabulary with smaller probabilities that,
// together, never add up to more than 1. The numbers come from their own PRNG stream, seeded like
// the tokens, so asking for logprobs does not change the text and the same request gives the same
// logprobs.
import type { TopLogprob } from '../../protocols/index.js';
import { SplitMix32 } from './token-stream.js';
import { isCompleteUtf8, type MockVocabulary } from './vocabulary.js';

/** Keeps the logprob stream apart from the token stream seeded by the same hash. */
const LOGPROB_STREAM_SALT = 0x6c6f6770726f6273n;
/** The sampled token's probability is drawn from [MIN, MIN + SPAN). */
const SAMPLED_MIN = 0.35;
const SAMPLED_SPAN = 0.6;

export interface TokenLogprob {
  logprob: number;
  /** null when the request asked for no alternatives (top_logprobs 0). */
  top: TopLogprob[] | null;
}

const utf8 = new TextDecoder();

export class LogprobSampler {
  private readonly rng: SplitMix32;

  /** `topK` alternatives per position (the sampled token included), 0..20. */
  constructor(
    private readonly vocab: MockVocabulary,
    seedHash: bigint,
    private readonly topK: number,
  ) {
    this.rng = SplitMix32.fromHash(BigInt.asUintN(64, seedHash ^ LOGPROB_STREAM_SALT));
  }

  next(tokenId: number): TokenLogprob {
    const sampled = SAMPLED_MIN + SAMPLED_SPAN * this.unit();
    const logprob = Math.log(sampled);
    if (this.topK === 0) return { logprob, top: null };
    const top: TopLogprob[] = [this.entry(1, tokenId, logprob)];
    const seen = new Set([tokenId]);
    // Each alternative takes at most half of what the previous one left: the total stays below 1.
    let p = (1 - sampled) * (0.25 + 0.25 * this.unit());
    const { first, count } = this.vocab.groups[0]!;
    for (let attempts = 0; top.length < this.topK && attempts < 4 * this.topK; attempts++) {
      const unit = first + (this.rng.nextU32() % count);
      const id = this.vocab.unitTokens[this.vocab.unitStart[unit]!]!;
      if (seen.has(id)) continue;
      seen.add(id);
      top.push(this.entry(top.length + 1, id, Math.log(p)));
      p *= 0.25 + 0.25 * this.unit();
    }
    return { logprob, top };
  }

  private unit(): number {
    return this.rng.nextU32() / 0x1_0000_0000;
  }

  private entry(rank: number, tokenId: number, logprob: number): TopLogprob {
    const bytes = this.vocab.tokenBytes(tokenId);
    const entry: TopLogprob = { rank, token_id: tokenId, token: bytes ? utf8.decode(bytes) : null, logprob };
    // A token holding part of a character needs its bytes: its text alone cannot say it.
    if (bytes && !isCompleteUtf8(bytes)) entry.bytes = Array.from(bytes);
    return entry;
  }
}
