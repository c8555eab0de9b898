// The prompt-side load of one worker under a prefill duration model (`--router-prefill-load-model
// ais`, reference/disagg-router.md §3.4). Prefills run one after another, so only the oldest active
// one (the anchor) drains, at the rate its predicted duration gives:
// - every request modeled: load = Σtokens − anchor_tokens·elapsed/anchor_duration, floored at 0
//   (past the anchor's own duration the backlog keeps draining at that rate);
// - any request unmodeled: only the anchor decays, ceil(anchor_tokens·(1 − elapsed/duration)).
// The anchor's clock restarts when the anchor completes (the next oldest starts now) and moves
// forward by a modeled non-anchor's duration when that one completes (capped at now).

/** Predicts how long a worker takes to prefill one request alone. */
export interface PrefillPredictor {
  /** Milliseconds to prefill `uncachedTokens` after `cachedTokens` of reused prefix; null when it cannot say. */
  predictMs(uncachedTokens: number, cachedTokens: number): number | null;
}

interface ActivePrefill {
  tokens: number;
  /** Null: unmodeled (the predictor could not say). */
  durationMs: number | null;
}

export class PrefillTracker {
  /** In arrival order: the first entry is the anchor. */
  private readonly active = new Map<string, ActivePrefill>();
  private total = 0;
  private unmodeled = 0;
  private anchorSince = 0;

  get size(): number {
    return this.active.size;
  }

  add(requestId: string, tokens: number, durationMs: number | null, now: number): void {
    if (tokens <= 0 || this.active.has(requestId)) return;
    if (this.active.size === 0) this.anchorSince = now;
    // A duration that is not a positive time says nothing about the drain rate.
    const modeled = durationMs !== null && durationMs > 0 ? durationMs : null;
    this.active.set(requestId, { tokens, durationMs: modeled });
    this.total += tokens;
    if (modeled === null) this.unmodeled++;
  }

  /** The request's prefill ended (first output, or it ended before that). */
  complete(requestId: string, now: number): void {
    const p = this.active.get(requestId);
    if (!p) return;
    const wasAnchor = this.active.keys().next().value === requestId;
    this.active.delete(requestId);
    this.total -= p.tokens;
    if (p.durationMs === null) this.unmodeled--;
    if (wasAnchor) this.anchorSince = now;
    else if (p.durationMs !== null) this.anchorSince = Math.min(now, this.anchorSince + p.durationMs);
  }

  /** Prompt tokens still to prefill as of `now`. */
  load(now: number): number {
    const anchor = this.active.values().next().value;
    if (anchor === undefined) return 0;
    if (anchor.durationMs === null) return this.total;
    const elapsed = Math.max(0, now - this.anchorSince);
    if (this.unmodeled === 0) return Math.max(0, this.total - (anchor.tokens * elapsed) / anchor.durationMs);
    const anchorLeft = Math.max(0, Math.ceil(anchor.tokens * (1 - elapsed / anchor.durationMs)));
    return this.total - anchor.tokens + anchorLeft;
  }
}
