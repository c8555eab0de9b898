// File discovery (reference/http.md §6.4): `<root>/<bucket>/<percent-encoded key>` holds the JSON
// value. Liveness is the file's mtime: owners touch their files every max(TTL/3, 1 s); anyone
// deletes files older than the TTL. Writes go through `.tmp_<hex>` + link/rename, so readers never
// see half a file. One host only (fs.watch, shared directory). A watcher rescans on file events and
// when the oldest file it saw would expire, not on a clock: an idle cluster leaves it asleep.
import { randomBytes } from 'node:crypto';
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { link, mkdir, readdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInstanceId } from '../ids.js';
import { KeyExistsError, type DiscoveryBackend, type Lease, type StoreEventHandler } from './backend.js';
import { WatchedSet } from './watched-set.js';

/** A file is expired once strictly older than the TTL: the expiry scan waits this much past that moment. */
const EXPIRY_SLACK_MS = 5;

export interface FileBackendOptions {
  /** `DYN_FILE_KV`; `$TMPDIR/dynamo_store_kv` when unset. */
  root?: string;
  leaseTtlSecs: number;
}

/** Every byte that is not an ASCII letter or digit becomes `%XX`. */
export function encodeFileKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const isAlnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
    out += isAlnum ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function decodeFileKey(name: string): string {
  return decodeURIComponent(name);
}

/** `v1/mdc/ns/comp/ep/id` → bucket `v1/mdc`, key `ns/comp/ep/id`. */
function splitKey(fullKey: string): { bucket: string; key: string } {
  const parts = fullKey.split('/');
  return { bucket: parts.slice(0, 2).join('/'), key: parts.slice(2).join('/') };
}

class FileLease implements Lease {
  readonly id = randomInstanceId();
  private readonly files = new Set<string>();
  private readonly refresher: NodeJS.Timeout;

  constructor(private readonly backend: FileDiscoveryBackend) {
    const every = Math.max((backend.ttlMs / 3) | 0, 1000);
    this.refresher = setInterval(() => void this.touchAll(), every);
    this.refresher.unref();
  }

  async create(fullKey: string, value: string): Promise<void> {
    const { dir, file } = await this.backend.locate(fullKey);
    const tmp = join(dir, `.tmp_${randomBytes(8).toString('hex')}`);
    await writeFile(tmp, value);
    try {
      // link() fails when the target exists: the create-if-absent of this backend.
      await link(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyExistsError(fullKey);
      throw err;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    this.files.add(file);
  }

  async delete(fullKey: string): Promise<void> {
    const { file } = await this.backend.locate(fullKey);
    this.files.delete(file);
    await unlink(file).catch(() => undefined);
  }

  async revoke(): Promise<void> {
    clearInterval(this.refresher);
    await Promise.all([...this.files].map((f) => unlink(f).catch(() => undefined)));
    this.files.clear();
  }

  onLost(): void {
    // Files are re-touched while the process lives; a lease is only lost with the process.
  }

  private async touchAll(): Promise<void> {
    const now = new Date();
    await Promise.all([...this.files].map((f) => utimes(f, now, now).catch(() => undefined)));
  }
}

export class FileDiscoveryBackend implements DiscoveryBackend {
  readonly name = 'file';
  readonly root: string;
  readonly ttlMs: number;
  private readonly closers = new Set<() => void>();

  constructor(opts: FileBackendOptions) {
    this.root = opts.root ?? join(tmpdir(), 'dynamo_store_kv');
    this.ttlMs = opts.leaseTtlSecs * 1000;
  }

  async locate(fullKey: string): Promise<{ dir: string; file: string }> {
    const { bucket, key } = splitKey(fullKey);
    const dir = join(this.root, bucket);
    await mkdir(dir, { recursive: true });
    return { dir, file: join(dir, encodeFileKey(key)) };
  }

  async grantLease(): Promise<Lease> {
    return new FileLease(this);
  }

  async watch(prefix: string, handler: StoreEventHandler): Promise<() => void> {
    const { bucket } = splitKey(prefix);
    const dir = join(this.root, bucket);
    await mkdir(dir, { recursive: true });
    const view = new WatchedSet(handler);
    let scanning = false;
    let again = false;
    let expiry: NodeJS.Timeout | undefined;
    let stopped = false;
    const scan = async (): Promise<void> => {
      if (scanning) {
        again = true;
        return;
      }
      scanning = true;
      try {
        let listed: Listing;
        do {
          again = false;
          listed = await this.listBucket(bucket, dir, prefix);
          view.resync(listed.entries);
        } while (again);
        if (watcher && !stopped) armExpiry(listed.firstExpiry);
      } finally {
        scanning = false;
      }
    };
    const rescan = (): void => void scan().catch(() => undefined);
    // Expiry has no file event: a timer wakes at the moment the oldest file seen would expire.
    let armedAt = Infinity;
    const armExpiry = (at: number): void => {
      clearTimeout(expiry);
      expiry = undefined;
      armedAt = at;
      if (at === Infinity) return;
      expiry = setTimeout(rescan, Math.max(0, at - Date.now()) + EXPIRY_SLACK_MS);
      expiry.unref();
    };
    let watcher: FSWatcher | null = null;
    try {
      // Values change by rename (a 'rename' event); a 'change' is a file's mtime set, by its owner's
      // refresh (later: the armed expiry covers it) or anyone's (earlier: expire on time). Temp
      // files are not keys.
      watcher = fsWatch(dir, (event, name) => {
        if (name?.startsWith('.tmp_')) return;
        if (event !== 'change' || !name) return rescan();
        stat(join(dir, name)).then((info) => info.mtimeMs + this.ttlMs < armedAt && rescan(), () => undefined);
      });
      watcher.on('error', () => undefined);
    } catch {
      // No inotify: only a periodic scan sees changes.
    }
    await scan();
    const poll = watcher ? undefined : setInterval(rescan, Math.min(1000, this.ttlMs / 2));
    poll?.unref();
    const stop = (): void => {
      stopped = true;
      clearInterval(poll);
      clearTimeout(expiry);
      watcher?.close();
      this.closers.delete(stop);
    };
    this.closers.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    for (const stop of [...this.closers]) stop();
  }

  /** The bucket's live entries under `prefix`, deleting the expired ones, and when the oldest live one expires. */
  private async listBucket(bucket: string, dir: string, prefix: string): Promise<Listing> {
    const entries: [string, string][] = [];
    let firstExpiry = Infinity;
    const now = Date.now();
    for (const name of await readdir(dir)) {
      if (name.startsWith('.tmp_')) continue;
      const fullKey = `${bucket}/${decodeFileKey(name)}`;
      if (!fullKey.startsWith(prefix)) continue;
      const file = join(dir, name);
      try {
        const info = await stat(file);
        if (now - info.mtimeMs > this.ttlMs) {
          await unlink(file).catch(() => undefined);
          continue;
        }
        entries.push([fullKey, await readFile(file, 'utf8')]);
        firstExpiry = Math.min(firstExpiry, info.mtimeMs + this.ttlMs);
      } catch {
        // Deleted between readdir and read: simply absent.
      }
    }
    return { entries, firstExpiry };
  }
}

interface Listing {
  entries: [string, string][];
  /** Epoch ms past which the oldest listed file is expired, unless touched; Infinity when none. */
  firstExpiry: number;
}
