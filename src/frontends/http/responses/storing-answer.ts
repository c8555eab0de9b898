// A Responses answer that is stored as it ends. Its events are kept as they are written; once the
// final one is out the response is stored, and only then does the stream end (a unary answer is
// sent once settled() resolves), so whatever the client asks next, of any frontend process that
// shares the store, finds it.

import type { ChoiceDelta } from '../../../pipeline/index.js';
import type { EventOut } from '../model-route/index.js';
import type { ResponseAnswer, ResponseEvents } from './response-events.js';
import type { StoredEvent } from './store/index.js';

type Json = Record<string, unknown>;

/** Stores the final Response object and the events written; resolves when done, failed or not (it reports a failure itself). */
export type StoreAnswer = (response: Json, events: StoredEvent[]) => Promise<void>;

export class StoringAnswer implements ResponseAnswer {
  private readonly events: ResponseEvents;
  private storing: Promise<void> = Promise.resolve();

  constructor(out: EventOut, make: (out: EventOut) => ResponseEvents, store: StoreAnswer) {
    const written: StoredEvent[] = [];
    this.events = make({
      event: (type, data) => {
        written.push([type, data]);
        out.event(type, data);
      },
      end: () => {
        const response = this.events.result();
        this.storing = (response ? store(response, written) : Promise.resolve()).finally(() => out.end());
      },
    });
  }

  start(): void {
    this.events.start();
  }

  delta(delta: ChoiceDelta): void {
    this.events.delta(delta);
  }

  finish(): void {
    this.events.finish();
  }

  finishUngenerated(): void {
    this.events.finishUngenerated();
  }

  fail(err: unknown): void {
    this.events.fail(err);
  }

  result(): Json | undefined {
    return this.events.result();
  }

  settled(): Promise<void> {
    return this.storing;
  }
}
