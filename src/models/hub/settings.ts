// Where the hub is and where its files are kept, from the same environment variables the Hugging
// Face libraries read, so a cache filled by one is reused by the other.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface HubSettings {
  /** Base URL of the hub, without a trailing slash. */
  endpoint: string;
  /** Sent as `Authorization: Bearer …` when set. */
  token?: string;
  /** The `hub` cache directory holding `models--org--name` folders. */
  cacheDir: string;
  /** Never touch the network: serve from the cache or fail. */
  offline: boolean;
}

export interface HubSettingsInput {
  hfEndpoint?: string;
  hfToken?: string;
  hfHome?: string;
  hfHubCache?: string;
  hfHubOffline?: boolean;
}

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

export function hubSettings(input: HubSettingsInput, env: Record<string, string | undefined> = process.env): HubSettings {
  const home = input.hfHome ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'huggingface');
  return {
    endpoint: (input.hfEndpoint ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, ''),
    token: input.hfToken ?? savedToken(home),
    cacheDir: input.hfHubCache ?? join(home, 'hub'),
    offline: input.hfHubOffline ?? false,
  };
}

/** The token `hf auth login` saved, used when HF_TOKEN is unset. */
function savedToken(home: string): string | undefined {
  const path = join(home, 'token');
  if (!existsSync(path)) return undefined;
  const token = readFileSync(path, 'utf8').trim();
  return token === '' ? undefined : token;
}
