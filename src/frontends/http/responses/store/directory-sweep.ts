// What a sweep of the file store's directory removes: the expired responses, then the oldest beyond
// the bound, whichever process stored them; also temporary files a process left when it died
// mid-write. Each process remembers the mtime of every response file it has seen, so a sweep reads
// the directory's names and stats only the files new to it (stored by other processes since). A
// response is stored once (its id is new), so a remembered mtime stays right until its file goes.
// Every process orders files the same way (mtime, then name), so processes sweeping at once pick
// the same files, and a file already gone counts as removed.

import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** A temporary file older than this was left by a process that died while writing it. */
const STALE_TEMP_MS = 60_000;

type Seen = [name: string, mtimeMs: number];

export class DirectorySweep {
  /** Response file name → its mtime (ms). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly isResponse: (name: string) => boolean,
    private readonly isTemp: (name: string) => boolean,
  ) {}

  /** How many response files the last sweep found, with those stored since. */
  get size(): number {
    return this.seen.size;
  }

  /** A response file this process stored just now. */
  stored(name: string, mtimeMs: number): void {
    this.seen.set(name, mtimeMs);
  }

  /** A response file this process removed. */
  removed(name: string): void {
    this.seen.delete(name);
  }

  /** Removes the files stored at or before `expiredAt`, then the oldest until at most `maxEntries` remain. */
  async sweep(expiredAt: number, maxEntries: number, now: number): Promise<void> {
    const names = await readdir(this.dir);
    const present = new Set(names);
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
    await Promise.all(names.filter((name) => this.isResponse(name) && !this.seen.has(name)).map((name) => this.learn(name)));
    const doomed: string[] = [];
    const kept: Seen[] = [];
    for (const [name, mtime] of this.seen) {
      if (mtime <= expiredAt) doomed.push(name);
      else kept.push([name, mtime]);
    }
    if (kept.length > maxEntries) doomed.push(...oldest(kept, kept.length - maxEntries));
    const temps = names.filter(this.isTemp).map(async (name) => {
      const mtime = await mtimeOf(join(this.dir, name));
      if (mtime !== undefined && mtime < now - STALE_TEMP_MS) await removeFile(join(this.dir, name));
    });
    await Promise.all([...doomed.map((name) => removeFile(join(this.dir, name)).then(() => this.seen.delete(name))), ...temps]);
  }

  private async learn(name: string): Promise<void> {
    const mtime = await mtimeOf(join(this.dir, name));
    if (mtime !== undefined) this.seen.set(name, mtime);
  }
}

const before = (a: Seen, b: Seen): boolean => a[1] < b[1] || (a[1] === b[1] && a[0] < b[0]);

/** The names of the `count` oldest entries; one (a put over a full store) without sorting them all. */
function oldest(entries: Seen[], count: number): string[] {
  if (count === 1) return [entries.reduce((min, entry) => (before(entry, min) ? entry : min))[0]];
  return entries
    .sort((a, b) => (before(a, b) ? -1 : 1))
    .slice(0, count)
    .map(([name]) => name);
}

/** The file's mtime in ms; undefined once it is gone. */
export async function mtimeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (err) {
    if (isGone(err)) return undefined;
    throw err;
  }
}

/** Removes the file; false when it was already gone (another process removed it). */
export async function removeFile(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (err) {
    if (isGone(err)) return false;
    throw err;
  }
}

export function isGone(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}
