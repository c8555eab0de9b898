// Exact per-request accounting for the fault drills: every streamed chat answer is read to its end
// and judged against the text an undisturbed run of the same request gives (the mocker's output is
// a function of the request), so a lost or repeated token shows, and every failure is told apart
// from the streams cut because their own frontend process was killed. Pure functions: the drills
// feed them what their clients saw.

/** What one streamed request ended with, as its client saw it. */
export interface StreamOutcome {
  /** Which request shape (seed and length) was sent; its expected answer is keyed by it. */
  key: number;
  /** Wall-clock ms (Date.now) of the send and of the end, error or not. */
  startedAt: number;
  endedAt: number;
  /** The HTTP status, when an answer started. */
  status?: number;
  /** Content deltas in order: one per token when the server sends them one by one. */
  deltas: string[];
  /** `data: [DONE]` arrived. */
  done: boolean;
  /** The message of an error event in the stream, or the body of a non-200 answer. */
  errorEvent?: string;
  /** The connection ended or failed before the answer did (reset, closed, client timeout). */
  transportError?: string;
  /** The longest wait for the next bytes, the first ones included, and when it ended (Date.now). */
  maxWaitMs: number;
  maxWaitAt?: number;
  /** The client's end of the connection: which frontend process held it is read by this port. */
  localPort?: number;
}

/** A `kill -9` of a frontend process: when, and the client ports of the connections it held. */
export interface FrontendKill {
  at: number;
  pid: number;
  ports: ReadonlySet<number>;
}

/** A fault of the drill, from its start to its end (when it was healed; unset while active). */
export interface FaultWindow {
  name: string;
  start: number;
  end?: number;
}

export type Verdict = 'ok' | 'failed' | 'cut_own_frontend' | 'lost' | 'duplicated';

export interface Judgement {
  verdict: Verdict;
  /** Why it failed or was cut (failed, cut_own_frontend). */
  reason?: string;
  lostTokens: number;
  duplicatedTokens: number;
  /** For a cut stream: ms from the kill to the client's error. */
  cutAfterMs?: number;
}

/**
 * A connection the primary was handing to a process as it was killed is that process's too: it
 * was in flight in the process's channel, so no answer had started; the kernel resets it at once.
 */
const HANDOFF_WINDOW_MS = 2_000;

/** Tokens missing from, and extra in, `got` against `want`: a common prefix, then the rest. */
export function compareTokens(got: readonly string[], want: readonly string[]): { lost: number; duplicated: number } {
  if (got.join('') === want.join('')) return { lost: 0, duplicated: 0 };
  let k = 0;
  while (k < got.length && k < want.length && got[k] === want[k]) k++;
  return { lost: Math.max(0, want.length - k), duplicated: Math.max(0, got.length - k) };
}

/** The answer arrived whole: 200, no error event, `[DONE]`, the connection intact. */
export function completed(o: StreamOutcome): boolean {
  return o.status === 200 && o.done && o.errorEvent === undefined && o.transportError === undefined;
}

function failureReason(o: StreamOutcome): string {
  if (o.errorEvent !== undefined) return o.status === 200 || o.status === undefined ? `error event: ${o.errorEvent}` : `HTTP ${o.status}: ${o.errorEvent}`;
  if (o.transportError !== undefined) return `connection: ${o.transportError}`;
  if (o.status !== 200) return `HTTP ${o.status ?? 'none'}`;
  return 'ended without [DONE]';
}

/** The kill that cut this stream, when the connection was that process's. */
export function killOf(o: StreamOutcome, kills: readonly FrontendKill[]): FrontendKill | undefined {
  if (o.transportError === undefined) return undefined;
  const held = kills.find((k) => o.localPort !== undefined && k.ports.has(o.localPort) && o.startedAt <= k.at && o.endedAt >= k.at);
  if (held) return held;
  if (o.status !== undefined) return undefined;
  return kills.find((k) => o.startedAt <= k.at + HANDOFF_WINDOW_MS && o.endedAt >= k.at && o.endedAt - k.at <= HANDOFF_WINDOW_MS);
}

/** One stream judged against its undisturbed answer (`expected`: its deltas). */
export function judge(o: StreamOutcome, expected: readonly string[] | undefined, kills: readonly FrontendKill[]): Judgement {
  if (!completed(o)) {
    const kill = killOf(o, kills);
    if (kill) return { verdict: 'cut_own_frontend', reason: failureReason(o), lostTokens: 0, duplicatedTokens: 0, cutAfterMs: o.endedAt - kill.at };
    return { verdict: 'failed', reason: failureReason(o), lostTokens: 0, duplicatedTokens: 0 };
  }
  if (expected === undefined) return { verdict: 'failed', reason: 'no undisturbed answer to compare with', lostTokens: 0, duplicatedTokens: 0 };
  const diff = compareTokens(o.deltas, expected);
  const verdict: Verdict = diff.lost > 0 ? 'lost' : diff.duplicated > 0 ? 'duplicated' : 'ok';
  return { verdict, lostTokens: diff.lost, duplicatedTokens: diff.duplicated };
}

/** The fault last started at `t` (active, or healed how long before), e.g. `worker-stop (active, +3.2 s)`. */
export function faultAt(faults: readonly FaultWindow[], t: number): string {
  let last: FaultWindow | undefined;
  for (const f of faults) if (f.start <= t && (!last || f.start >= last.start)) last = f;
  if (!last) return 'none (before the first fault)';
  const since = ((t - last.start) / 1000).toFixed(1);
  if (last.end === undefined || t <= last.end) return `${last.name} (active, +${since} s)`;
  return `${last.name} (healed ${((t - last.end) / 1000).toFixed(1)} s before)`;
}

export interface DrillSummary {
  sent: number;
  completed: number;
  failed: number;
  cutOwnFrontend: number;
  /** Streams that completed with tokens missing / repeated against their undisturbed answer. */
  lost: number;
  duplicated: number;
  lostTokens: number;
  duplicatedTokens: number;
  /** The longest wait for the next bytes among the streams not cut by their own frontend's kill. */
  maxWaitMs: number;
  /** The longest time from a frontend kill to its own streams' client errors. */
  maxCutErrorMs: number;
}

export function summarize(outcomes: readonly StreamOutcome[], judgements: readonly Judgement[]): DrillSummary {
  const s: DrillSummary = { sent: outcomes.length, completed: 0, failed: 0, cutOwnFrontend: 0, lost: 0, duplicated: 0, lostTokens: 0, duplicatedTokens: 0, maxWaitMs: 0, maxCutErrorMs: 0 };
  judgements.forEach((j, i) => {
    if (j.verdict === 'failed') s.failed++;
    else if (j.verdict === 'cut_own_frontend') s.cutOwnFrontend++;
    else s.completed++;
    if (j.verdict === 'lost') s.lost++;
    if (j.verdict === 'duplicated') s.duplicated++;
    s.lostTokens += j.lostTokens;
    s.duplicatedTokens += j.duplicatedTokens;
    if (j.verdict === 'cut_own_frontend') s.maxCutErrorMs = Math.max(s.maxCutErrorMs, j.cutAfterMs ?? 0);
    else s.maxWaitMs = Math.max(s.maxWaitMs, outcomes[i]!.maxWaitMs);
  });
  return s;
}

/** The summary as one `key=value` line, for scripts. */
export function summaryLine(s: DrillSummary, extra: Record<string, string | number> = {}): string {
  const fields: Record<string, string | number> = {
    ...extra,
    sent: s.sent,
    completed: s.completed,
    failed: s.failed,
    cut_own_frontend: s.cutOwnFrontend,
    lost: s.lost,
    duplicated: s.duplicated,
    lost_tokens: s.lostTokens,
    duplicated_tokens: s.duplicatedTokens,
    max_wait_ms: Math.round(s.maxWaitMs),
    max_cut_error_ms: Math.round(s.maxCutErrorMs),
  };
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** Reads an SSE body as it arrives: the `data:` payloads of complete events. */
export class SseEvents {
  private pending = '';

  push(text: string): string[] {
    this.pending += text;
    const out: string[] = [];
    let end: number;
    while ((end = this.pending.indexOf('\n\n')) >= 0) {
      const event = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      for (const line of event.split('\n')) if (line.startsWith('data: ')) out.push(line.slice(6));
    }
    return out;
  }
}

/** Applies one `data:` payload of a chat stream to its outcome. */
export function applyChatEvent(o: StreamOutcome, data: string): void {
  if (data === '[DONE]') {
    o.done = true;
    return;
  }
  const chunk = JSON.parse(data) as { error?: { message?: string } | string; choices?: { delta?: { content?: string } }[] };
  if (chunk.error !== undefined) o.errorEvent = typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? JSON.stringify(chunk.error));
  const piece = chunk.choices?.[0]?.delta?.content;
  if (piece) o.deltas.push(piece);
}
