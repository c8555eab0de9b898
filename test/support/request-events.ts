import {
  subscribeRequestEvents,
  type RequestEventMap,
  type RequestEventName,
  type RequestScope,
} from '../../src/protocols/index.js';

export type SeenEvent = { [K in RequestEventName]: [K, RequestEventMap[K]] }[RequestEventName];

export interface EventRecorder {
  seen: SeenEvent[];
  /** The event names seen, errors as `error:<kind>`. */
  names(): string[];
  /** The events of one name. */
  of<K extends RequestEventName>(name: K): RequestEventMap[K][];
  stop(): void;
}

/** Records every request event of `scope` (token events copied: the publisher reuses them). */
export function recordRequestEvents(scope: RequestScope): EventRecorder {
  const seen: SeenEvent[] = [];
  const stop = subscribeRequestEvents(scope, {
    start: (e) => seen.push(['start', e]),
    firstToken: (e) => seen.push(['firstToken', e]),
    token: (e) => seen.push(['token', { ...e }]),
    end: (e) => seen.push(['end', e]),
    error: (e) => seen.push(['error', e]),
    cancel: (e) => seen.push(['cancel', e]),
  });
  return {
    seen,
    names: () => seen.map(([name, e]) => (name === 'error' ? `error:${(e as RequestEventMap['error']).kind}` : name)),
    of: <K extends RequestEventName>(name: K) => seen.filter((s) => s[0] === name).map((s) => s[1] as RequestEventMap[K]),
    stop,
  };
}
