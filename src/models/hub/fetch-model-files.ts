// A model named by a hub repository id → a local snapshot folder holding its config and tokenizer
// files (never weights), in the Hugging Face cache layout. A snapshot already in the cache is used
// without touching the network.

import { NotFoundError, ValidationError, type RepoRef } from '../../protocols/index.js';
import { HubCache } from './cache.js';
import { HubClient } from './client.js';
import { SILENT_PROGRESS, type DownloadProgress } from './progress.js';
import type { HubSettings } from './settings.js';

/** Everything the card loader reads plus what tokenizers and templates sometimes need; no weights. */
export const MODEL_FILES: ReadonlySet<string> = new Set([
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'chat_template.jinja',
  'chat_template.json',
  'vocab.json',
  'merges.txt',
  'tokenizer.model',
]);

/** The file without which the folder cannot serve: the card loader needs it. */
const REQUIRED_FILE = 'tokenizer.json';

// Branch and tag names: no `..` segment, no leading `/`, nothing a path would misread.
const REVISION = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9_.\-/]+$/;

export interface FetchOptions {
  progress?: DownloadProgress;
}

export interface FetchedModel {
  /** The snapshot folder: give it to the card loader. */
  dir: string;
  commit: string;
  /** False when the cache already had it. */
  downloaded: boolean;
}

export async function fetchModelFiles(ref: RepoRef, settings: HubSettings, opts: FetchOptions = {}): Promise<FetchedModel> {
  if (!REVISION.test(ref.revision)) throw new ValidationError(`invalid revision ${JSON.stringify(ref.revision)} for ${ref.repo}`);
  const cache = new HubCache(settings.cacheDir, ref.repo);
  const cached = cache.commitOf(ref.revision);
  if (cached !== null && cache.has(cached, REQUIRED_FILE)) {
    return { dir: cache.snapshotDir(cached), commit: cached, downloaded: false };
  }
  if (settings.offline) {
    throw new NotFoundError(
      `Hugging Face repository ${ref.repo} (revision ${ref.revision}) is not in the cache at ${settings.cacheDir} and HF_HUB_OFFLINE=1 forbids downloading it: unset HF_HUB_OFFLINE, or give --model-path DIR`,
    );
  }
  const client = new HubClient(settings);
  const listing = await client.listing(ref.repo, ref.revision);
  const wanted = listing.files.filter((file) => MODEL_FILES.has(file));
  if (!wanted.includes(REQUIRED_FILE)) {
    throw new NotFoundError(`Hugging Face repository ${ref.repo} (revision ${ref.revision}) has no ${REQUIRED_FILE}: give --model-path DIR with the tokenizer files`);
  }
  const progress = opts.progress ?? SILENT_PROGRESS;
  for (const file of wanted) {
    if (cache.has(listing.commit, file)) continue;
    const bar = progress.file(file);
    const { data, etag } = await client.download(ref.repo, listing.commit, file, bar.bytes);
    cache.store(listing.commit, file, data, etag);
    bar.done();
  }
  cache.writeRef(ref.revision, listing.commit);
  return { dir: cache.snapshotDir(listing.commit), commit: listing.commit, downloaded: true };
}
