// Responses kept as one JSON file each (`<id>.json`) in a directory that every frontend process of
// a host opens (a pool runs several) and that outlives a restart. A put writes a temporary file and
// renames it over the response's name, so a reader in any process opens the whole old file or the
// whole new one, never part of one. The file's mtime is when it was stored: the TTL counts from
// it, and the bound drops the oldest by it (directory-sweep.ts). A sweep reads every name in the
// directory (about a microsecond each), so it runs after a share of the puts: every put while the
// store holds fewer than 100 responses, then once the puts since the last sweep number 1% of what
// it holds; until then the directory holds up to that many more. A put that sweeps resolves once
// the sweep is done; puts that land during a sweep share the next one. Reads skip expired files
// whether swept or not. Plain files, no native module: nothing to build on install.

import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectorySweep, isGone, mtimeOf, removeFile } from './directory-sweep.js';
import { STORABLE_ID, type ResponseStore, type ResponseStoreSettings, type StoredResponse } from './response-store.js';

/** A sweep runs once the puts since the last one number this share of the responses held. */
const SWEEP_SHARE = 0.01;
const SUFFIX = '.json';
const TEMP_SUFFIX = '.tmp';

/** Where the directory is when --response-store-path is not given: one per user of the host, the same for all its processes. */
export function defaultFileStoreDir(): string {
  const uid = process.getuid?.();
  return join(tmpdir(), uid === undefined ? 'dynamo-ts-responses' : `dynamo-ts-responses-${uid}`);
}

export class FileResponseStore implements ResponseStore {
  private readonly now: () => number;
  private readonly sweeper: DirectorySweep;
  /** The last mtime this process gave a file: each put's is later, so the order of its puts is kept within a millisecond. */
  private lastStamp = 0;
  private putsSinceSweep = 0;
  private sweeping: Promise<void> | undefined;
  private nextSweep: Promise<void> | undefined;

  private constructor(
    private readonly dir: string,
    private readonly settings: ResponseStoreSettings,
  ) {
    this.now = settings.now ?? Date.now;
    this.sweeper = new DirectorySweep(dir, (name) => name.endsWith(SUFFIX) && !name.startsWith('.'), (name) => name.endsWith(TEMP_SUFFIX));
  }

  /** Opens (making it if needed) the directory, and sweeps what expired while no process ran. */
  static async open(settings: ResponseStoreSettings): Promise<FileResponseStore> {
    const dir = settings.path ?? defaultFileStoreDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (settings.path === undefined) await assertOwnDirectory(dir);
    const store = new FileResponseStore(dir, settings);
    await store.sweep();
    return store;
  }

  async put(stored: StoredResponse): Promise<void> {
    const name = fileName(String(stored.response.id));
    const temp = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
    const stamp = (this.lastStamp = Math.max(this.now(), this.lastStamp + 0.001));
    try {
      await writeFile(temp, JSON.stringify(stored), { mode: 0o600 });
      await utimes(temp, stamp / 1000, stamp / 1000);
      await rename(temp, join(this.dir, name));
    } catch (err) {
      await removeFile(temp);
      throw err;
    }
    this.sweeper.stored(name, stamp);
    if (++this.putsSinceSweep >= this.sweeper.size * SWEEP_SHARE) await this.sweep();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    let handle;
    try {
      handle = await open(join(this.dir, fileName(id)), 'r');
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
    try {
      if (this.expired((await handle.stat()).mtimeMs)) return undefined;
      return JSON.parse(await handle.readFile('utf8')) as StoredResponse;
    } finally {
      await handle.close();
    }
  }

  async delete(id: string): Promise<boolean> {
    const name = fileName(id);
    const path = join(this.dir, name);
    const mtime = await mtimeOf(path);
    if (mtime === undefined) return false;
    const removed = await removeFile(path);
    this.sweeper.removed(name);
    return removed && !this.expired(mtime);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.sweeping, this.nextSweep]);
  }

  private expired(mtimeMs: number): boolean {
    return mtimeMs + this.settings.ttlSecs * 1000 <= this.now();
  }

  /** One sweep at a time in this process; a call during one waits for the next, which sees its file. */
  private sweep(): Promise<void> {
    if (this.sweeping) {
      this.nextSweep ??= this.sweeping.catch(() => undefined).then(() => {
        this.nextSweep = undefined;
        return this.sweep();
      });
      return this.nextSweep;
    }
    const now = this.now();
    this.putsSinceSweep = 0;
    this.sweeping = this.sweeper.sweep(now - this.settings.ttlSecs * 1000, this.settings.maxEntries, now).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }
}

/** The id's file name; an id that is not a STORABLE_ID could name a path outside the directory, so it is refused. */
function fileName(id: string): string {
  if (!STORABLE_ID.test(id)) throw new Error(`not a stored response id: ${JSON.stringify(id)}`);
  return id + SUFFIX;
}

/** The default directory is in the shared temporary directory: it must be this user's own, and private. */
async function assertOwnDirectory(dir: string): Promise<void> {
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0) {
    throw new Error(`the response store directory ${dir} is not a private directory of this user: remove it, or set --response-store-path`);
  }
}
