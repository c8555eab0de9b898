// The Hugging Face cache layout: `models--org--name/` holds `blobs/<etag>` (file contents),
// `snapshots/<commit>/<file>` (links into blobs) and `refs/<revision>` (the commit a branch or tag
// pointed at when it was fetched).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isCommitHash } from '../../protocols/index.js';

export class HubCache {
  readonly repoDir: string;

  constructor(cacheDir: string, repo: string) {
    this.repoDir = join(cacheDir, `models--${repo.split('/').join('--')}`);
  }

  /** The commit `revision` resolves to in the cache, or null when it was never fetched. */
  commitOf(revision: string): string | null {
    if (isCommitHash(revision)) return revision;
    const ref = join(this.repoDir, 'refs', revision);
    return existsSync(ref) ? readFileSync(ref, 'utf8').trim() : null;
  }

  snapshotDir(commit: string): string {
    return join(this.repoDir, 'snapshots', commit);
  }

  has(commit: string, file: string): boolean {
    return existsSync(join(this.snapshotDir(commit), file));
  }

  /**
   * Stores `data` as a blob named by the hub's etag (or its sha256 when the hub sent none) and
   * links it into the snapshot. Written under a temporary name and renamed, so a crash never
   * leaves a truncated file that looks complete.
   */
  store(commit: string, file: string, data: Buffer, etag: string | null): void {
    const blob = join(this.repoDir, 'blobs', etag ?? createHash('sha256').update(data).digest('hex'));
    if (!existsSync(blob)) writeAtomically(blob, data);
    const link = join(this.snapshotDir(commit), file);
    mkdirSync(dirname(link), { recursive: true });
    rmSync(link, { force: true });
    symlinkSync(relative(dirname(link), blob), link);
  }

  /** Records where `revision` points; written last, so a ref means the snapshot is complete. */
  writeRef(revision: string, commit: string): void {
    if (isCommitHash(revision)) return;
    writeAtomically(join(this.repoDir, 'refs', revision), Buffer.from(commit));
  }
}

function writeAtomically(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.incomplete`;
  writeFileSync(partial, data);
  renameSync(partial, path);
}
