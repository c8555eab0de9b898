// The two hub routes a model's small files need: the repository listing
// (`GET /api/models/{repo}/revision/{rev}`) and file downloads (`GET /{repo}/resolve/{commit}/{file}`).

import { ForbiddenError, NotFoundError, ServiceUnreachableError, UnauthenticatedError, UnavailableError } from '../../protocols/index.js';
import type { HubSettings } from './settings.js';

export interface RepoListing {
  /** The commit the revision points at. */
  commit: string;
  files: string[];
}

export interface Download {
  data: Buffer;
  /** The hub's content id for the blob (LFS sha256 or git object id), when it sent one. */
  etag: string | null;
}

/** Called as bytes arrive: bytes so far, and the total when the hub said it. */
export type OnBytes = (received: number, total: number | null) => void;

const MAX_REDIRECTS = 5;
export const OFFLINE_FIX = 'check HF_ENDPOINT, set HF_HUB_OFFLINE=1 to use the cache, or give --model-path DIR';

export class HubClient {
  constructor(private readonly settings: HubSettings) {}

  async listing(repo: string, revision: string): Promise<RepoListing> {
    const url = `${this.settings.endpoint}/api/models/${repo}/revision/${encodeURIComponent(revision)}`;
    const res = await this.get(url, repo, revision);
    const body = (await res.json()) as { sha?: unknown; siblings?: Array<{ rfilename?: unknown }> };
    if (typeof body.sha !== 'string' || !Array.isArray(body.siblings)) {
      throw new UnavailableError(`the hub at ${this.settings.endpoint} sent a listing of ${repo} without sha and siblings`);
    }
    return { commit: body.sha, files: body.siblings.map((s) => s.rfilename).filter((f): f is string => typeof f === 'string') };
  }

  async download(repo: string, commit: string, file: string, onBytes: OnBytes): Promise<Download> {
    const path = file.split('/').map(encodeURIComponent).join('/');
    const res = await this.get(`${this.settings.endpoint}/${repo}/resolve/${commit}/${path}`, repo, commit);
    const total = Number(res.headers.get('content-length') ?? NaN);
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      chunks.push(Buffer.from(chunk));
      received += chunk.byteLength;
      onBytes(received, Number.isFinite(total) ? total : null);
    }
    return { data: Buffer.concat(chunks), etag: (res as TaggedResponse).hubEtag };
  }

  /**
   * GET following redirects by hand: the first answer carries the blob's etag (`X-Linked-Etag` for
   * LFS files, which redirect to a CDN), and the token must not follow a redirect to another origin.
   */
  private async get(url: string, repo: string, revision: string): Promise<TaggedResponse> {
    let etag: string | null = null;
    let auth = this.settings.token ? `Bearer ${this.settings.token}` : undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await this.send(url, auth);
      etag ??= cleanEtag(res.headers.get('x-linked-etag') ?? res.headers.get('etag'));
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        const next = new URL(location, url);
        if (next.origin !== new URL(url).origin) auth = undefined;
        url = next.href;
        continue;
      }
      if (!res.ok) throw await this.failure(res, repo, revision);
      return Object.assign(res, { hubEtag: etag });
    }
    throw new UnavailableError(`the hub at ${this.settings.endpoint} redirected ${repo} more than ${MAX_REDIRECTS} times`);
  }

  private async send(url: string, auth: string | undefined): Promise<Response> {
    try {
      return await fetch(url, { redirect: 'manual', headers: auth ? { authorization: auth } : {} });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ServiceUnreachableError('the Hugging Face hub', this.settings.endpoint, cause?.code ?? cause?.message ?? (err as Error).message, OFFLINE_FIX);
    }
  }

  private async failure(res: Response, repo: string, revision: string): Promise<Error> {
    await res.body?.cancel();
    const code = res.headers.get('x-error-code');
    const at = `at ${this.settings.endpoint}`;
    if (code === 'RevisionNotFound') return new NotFoundError(`Hugging Face repository ${repo} has no revision ${revision} ${at}`);
    if (code === 'EntryNotFound') return new NotFoundError(`a file of Hugging Face repository ${repo} (revision ${revision}) is missing ${at}`);
    if (res.status === 404 || code === 'RepoNotFound') {
      const hint = this.settings.token ? '' : ' (a private repository needs HF_TOKEN)';
      return new NotFoundError(`Hugging Face repository ${repo} not found ${at}${hint}`);
    }
    if (res.status === 401) return new UnauthenticatedError(`Hugging Face repository ${repo} is gated or private: set HF_TOKEN to a token that can read it`);
    if (res.status === 403) return new ForbiddenError(`HF_TOKEN may not read Hugging Face repository ${repo}: request access to it on the hub`);
    if (res.status >= 500 || res.status === 429) {
      return new ServiceUnreachableError('the Hugging Face hub', this.settings.endpoint, `HTTP ${res.status}`, OFFLINE_FIX);
    }
    return new UnavailableError(`the hub at ${this.settings.endpoint} answered HTTP ${res.status} for ${repo}`);
  }
}

type TaggedResponse = Response & { hubEtag: string | null };

/** `W/"abc"` → `abc`. */
function cleanEtag(value: string | null): string | null {
  const etag = value?.replace(/^W\//, '').replace(/"/g, '').trim();
  return etag && /^[A-Za-z0-9_-]+$/.test(etag) ? etag : null;
}
