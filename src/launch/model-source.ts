// `--model-path` as given → a local folder: an existing folder as is, a hub repository id fetched
// (config and tokenizer files only) into the Hugging Face cache first.

import { existsSync } from 'node:fs';
import type { Config } from '../config/index.js';
import { fetchModelFiles, hubSettings, terminalProgress, type ProgressStream } from '../models/index.js';
import { parseRepoRef, ValidationError } from '../protocols/index.js';

export interface ModelSourceOptions {
  /** Where the download bar goes (drawn only when it is a terminal). */
  progressTo?: ProgressStream;
  /** Told once per download, e.g. "fetched Qwen/Qwen3-0.6B@main (abc123) into …". */
  tell?: (line: string) => void;
}

/**
 * The config with `modelPath` pointing at a local folder. A repository id also becomes the served
 * model name unless --model-name gives one, as the folder path would otherwise name the model.
 */
export async function resolveModelSource(config: Config, opts: ModelSourceOptions = {}): Promise<Config> {
  const path = config.modelPath;
  if (path === undefined || existsSync(path)) return config;
  const ref = parseRepoRef(path, config.modelRevision);
  if (ref === null) throw new ValidationError(`--model-path ${path} is neither an existing folder nor a Hugging Face repository id (org/name[@rev])`);
  const settings = hubSettings(config);
  const fetched = await fetchModelFiles(ref, settings, {
    progress: opts.progressTo ? terminalProgress(opts.progressTo, ref.repo) : undefined,
  });
  if (fetched.downloaded) opts.tell?.(`fetched the config and tokenizer of ${ref.repo}@${ref.revision} (${fetched.commit}) into ${fetched.dir}`);
  return { ...config, modelPath: fetched.dir, modelName: config.modelName ?? ref.repo };
}
