// A file the process re-reads when it changes: fs.watch on its folder (editors replace files rather
// than write them in place; a Kubernetes secret update swaps a `..data` symlink, not the file) plus
// a periodic stat check for file systems where watch stays silent. The stat follows symlinks.
import { statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { dirname } from 'node:path';

/** How often the file's stat is compared when no watch event came. */
const STAT_INTERVAL_MS = 2000;

const signature = (s: Stats): string => `${s.ino}:${s.size}:${s.mtimeMs}`;

export interface WatchedFileHandlers {
  /** The file changed (or came back): read it again. */
  changed(): void;
  /** The file is gone; told once until it comes back. */
  missing(err: Error): void;
}

export class WatchedFile {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private seen = '';

  constructor(
    private readonly file: string,
    private readonly handlers: WatchedFileHandlers,
  ) {}

  /** Records the file as read now; later changes are compared with this state. */
  markRead(): void {
    try {
      this.seen = signature(statSync(this.file));
    } catch {
      this.seen = 'missing';
    }
  }

  start(): void {
    try {
      this.watcher = watch(dirname(this.file), { persistent: false }, () => this.check());
      this.watcher.on('error', () => undefined);
    } catch {
      // The stat check below still notices changes.
    }
    this.timer = setInterval(() => this.check(), STAT_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    this.watcher = null;
    this.timer = null;
  }

  private check(): void {
    let stats: Stats;
    try {
      stats = statSync(this.file);
    } catch (err) {
      if (this.seen !== 'missing') this.handlers.missing(err as Error);
      this.seen = 'missing';
      return;
    }
    if (signature(stats) === this.seen) return;
    this.seen = signature(stats);
    this.handlers.changed();
  }
}
