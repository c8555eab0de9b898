// How a router's requests move when their worker is lost (the migration layer, migration.ts):
// what the router holds and the layer reads.
import type { ResumableRequests } from '../resumable-requests.js';

export interface MigrationLogger {
  warn(obj: object, msg: string): void;
}

export interface Migration<Req, Out> {
  /** Moves allowed once a request has answered (`--migration-limit`); 0 keeps only the retries before any output. */
  readonly limit: number;
  /** Past this many prompt + generated tokens a request no longer moves (`--migration-max-seq-len`); null: no bound. */
  readonly maxSeqLen: number | null;
  /** How requests of this router move mid-stream; null when they cannot. */
  readonly resumable: ResumableRequests<Req, Out> | null;
  readonly logger: MigrationLogger;
}

/** What the launcher sets: everything but how the router's kind of request moves. */
export type MigrationSettings = Omit<Migration<never, never>, 'resumable'>;

const silent: MigrationLogger = { warn: () => undefined };

export const NO_MIGRATION: Migration<never, never> = { limit: 0, maxSeqLen: null, resumable: null, logger: silent };
