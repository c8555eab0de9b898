// When requests start: a closed loop at fixed concurrency, or an open loop whose arrivals come
// from a Poisson process or a trace's timestamps. Each conversation's turns run one after another.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchClient, Message, Outcome } from './clients/index.js';
import { poissonGapMs, seededRandom } from './random.js';
import type { Conversation, Workload } from './workload.js';

/** One point of a sweep. Neither field: replay the trace at its timestamps. */
export interface LoadPoint {
  readonly concurrency?: number;
  readonly requestRate?: number;
}

export interface RunSettings {
  readonly client: BenchClient;
  readonly model: string;
  readonly stream: boolean;
  readonly ignoreEos: boolean;
  readonly timeoutMs: number;
  /** Requests to start at most. */
  readonly requests: number;
  /** Window in which requests may start. */
  readonly durationMs: number;
  /** Cap on requests in flight in an open loop. */
  readonly maxInFlight: number;
  readonly seed: number;
  /** Stops starting requests and cancels those in flight (Ctrl-C). */
  readonly signal: AbortSignal;
  readonly onOutcome: (outcome: Outcome) => void;
}

/** Runs one load point to its bound and returns every request's outcome with the run's start time. */
export async function runLoadPoint(point: LoadPoint, workload: Workload, s: RunSettings): Promise<{ startMs: number; outcomes: Outcome[] }> {
  const outcomes: Outcome[] = [];
  const startMs = performance.now();
  // Requests are reserved per conversation when it starts, so --requests counts whole sessions
  // (the last one cut short) however fast the server answers.
  let reserved = 0;
  const inTime = () => !s.signal.aborted && performance.now() - startMs < s.durationMs;
  const open = () => inTime() && reserved < s.requests;

  const converse = async (conversation: Conversation): Promise<void> => {
    const history: Message[] = [];
    const budget = Math.min(conversation.turns.length, s.requests - reserved);
    reserved += budget;
    for (const turn of conversation.turns.slice(0, budget)) {
      if (!inTime()) return;
      history.push({ role: 'user', content: turn.text });
      const outcome = await s.client.send({
        model: s.model,
        messages: history,
        maxTokens: turn.maxTokens,
        ignoreEos: s.ignoreEos,
        stream: s.stream,
        signal: AbortSignal.any([s.signal, AbortSignal.timeout(s.timeoutMs)]),
      });
      outcomes.push(outcome);
      s.onOutcome(outcome);
      if (outcome.error !== undefined) return;
      history.push({ role: 'assistant', content: outcome.text });
    }
  };

  if (point.concurrency !== undefined && point.requestRate === undefined) {
    await Promise.all(Array.from({ length: point.concurrency }, async () => {
      for (let c = open() ? workload.next() : undefined; c !== undefined; c = open() ? workload.next() : undefined) await converse(c);
    }));
    return { startMs, outcomes };
  }

  const random = seededRandom(s.seed ^ 0xa441);
  let arrival = 0;
  const arrivalOf = (c: Conversation) => (point.requestRate !== undefined ? (arrival += poissonGapMs(random, point.requestRate)) : c.atMs ?? 0);
  const inFlight = new Set<Promise<void>>();
  for (let c = workload.next(); c !== undefined && open(); c = workload.next()) {
    const wait = startMs + Math.min(arrivalOf(c), s.durationMs) - performance.now();
    if (wait > 0) await sleep(wait, undefined, { signal: s.signal }).catch(() => undefined);
    while (inFlight.size >= s.maxInFlight) await Promise.race(inFlight);
    if (!open()) break;
    const running: Promise<void> = converse(c).finally(() => inFlight.delete(running));
    inFlight.add(running);
  }
  await Promise.all(inFlight);
  return { startMs, outcomes };
}
