// A `--model-path` value that names a hub repository rather than a folder: `org/name`, optionally
// pinned as `org/name@revision`.

export interface RepoRef {
  /** `org/name`. */
  repo: string;
  /** A branch, tag or commit; `main` when none was given. */
  revision: string;
}

export const DEFAULT_REVISION = 'main';

// The hub's own rule for names: letters, digits, `-`, `_`, `.`; neither part starts with `.` or `-`.
/** `org/name` or `org/name@revision`. */
export const HUB_REPO_REF = /^([A-Za-z0-9_][A-Za-z0-9_.-]*\/[A-Za-z0-9_][A-Za-z0-9_.-]*)(?:@(.+))?$/;

/** `org/name[@rev]` → its parts (an explicit `revision` wins over `@rev`); null when it is not a repository id. */
export function parseRepoRef(value: string, revision?: string): RepoRef | null {
  const match = HUB_REPO_REF.exec(value);
  if (!match || match[1]!.includes('..')) return null;
  return { repo: match[1]!, revision: revision ?? match[2] ?? DEFAULT_REVISION };
}

/** A full commit hash names a snapshot directly, without a ref to look up. */
export function isCommitHash(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}
