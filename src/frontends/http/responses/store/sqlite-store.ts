// Responses kept in one SQLite file, shared by every frontend process of a host (the default pool
// runs several) and kept across restarts. WAL lets the processes read while one writes; a busy
// timeout makes a writer wait for another's lock instead of failing. The rowid orders entries by
// when they were stored (a replaced entry gets a new one), so the bound drops the lowest rowids.
// better-sqlite3 is synchronous: each call is a short local file operation on the event loop.

import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResponseStore, ResponseStoreSettings, StoredResponse } from './response-store.js';

/** Where the file is when --response-store-path is not given: the same for every process of the host. */
export const DEFAULT_SQLITE_PATH = join(tmpdir(), 'dynamo-ts-responses.sqlite');

const SCHEMA = `CREATE TABLE IF NOT EXISTS responses (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  expires_at INTEGER NOT NULL,
  body TEXT NOT NULL
)`;

export class SqliteResponseStore implements ResponseStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly statements;

  constructor(private readonly settings: ResponseStoreSettings) {
    this.now = settings.now ?? Date.now;
    this.db = new Database(settings.path ?? DEFAULT_SQLITE_PATH);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.statements = {
      put: this.db.prepare('INSERT OR REPLACE INTO responses (id, expires_at, body) VALUES (?, ?, ?)'),
      get: this.db.prepare<[string, number], { body: string }>('SELECT body FROM responses WHERE id = ? AND expires_at > ?'),
      delete: this.db.prepare<[string, number]>('DELETE FROM responses WHERE id = ? AND expires_at > ?'),
      expire: this.db.prepare<[number]>('DELETE FROM responses WHERE expires_at <= ?'),
      bound: this.db.prepare<[number]>('DELETE FROM responses WHERE seq <= (SELECT seq FROM responses ORDER BY seq DESC LIMIT 1 OFFSET ?)'),
    };
  }

  async put(stored: StoredResponse): Promise<void> {
    const now = this.now();
    this.db.transaction(() => {
      this.statements.put.run(String(stored.response.id), now + this.settings.ttlSecs * 1000, JSON.stringify(stored));
      this.statements.expire.run(now);
      this.statements.bound.run(this.settings.maxEntries);
    })();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const row = this.statements.get.get(id, this.now());
    return row ? (JSON.parse(row.body) as StoredResponse) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    return this.statements.delete.run(id, this.now()).changes > 0;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
