// A stand-in Hugging Face hub: the repository listing and resolve routes, LFS files redirected to a
// CDN path with `X-Linked-Etag`, gated repositories that answer 401 without a token, and the hub's
// `X-Error-Code` headers. Every request is recorded for the tests to inspect.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRepo {
  /** Revision (branch or tag) → commit → files. */
  revisions: Record<string, { commit: string; files: Record<string, string | Buffer> }>;
  /** Needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Files served as LFS blobs: a redirect to the CDN path, etag in `X-Linked-Etag`. */
  lfs?: readonly string[];
}

export interface StandInHub {
  endpoint: string;
  /** Path and Authorization header of every request, in order. */
  requests: Array<{ path: string; authorization?: string }>;
  close(): Promise<void>;
}

export async function startStandInHub(repos: Record<string, StandInRepo>): Promise<StandInHub> {
  const requests: StandInHub['requests'] = [];
  const blobs = new Map<string, Buffer>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://hub').pathname);
    requests.push({ path, authorization: req.headers.authorization });
    const fail = (status: number, code?: string): void => {
      res.writeHead(status, code ? { 'x-error-code': code, 'content-type': 'application/json' } : {}).end(JSON.stringify({ error: code ?? 'error' }));
    };
    const cdn = /^\/cdn\/([0-9a-f]+)$/.exec(path);
    if (cdn) {
      const blob = blobs.get(cdn[1]!);
      if (!blob) return fail(404);
      res.writeHead(200, { 'content-length': blob.length }).end(blob);
      return;
    }
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/(.+)$/.exec(path);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repoId = api?.[1] ?? resolve?.[1];
    const repo = repoId !== undefined ? repos[repoId] : undefined;
    if (!repoId || !repo) return fail(404, 'RepoNotFound');
    if (repo.token !== undefined && req.headers.authorization !== `Bearer ${repo.token}`) {
      return fail(req.headers.authorization ? 403 : 401, 'GatedRepo');
    }
    const revision = (api?.[2] ?? resolve?.[2])!;
    const found = Object.values(repo.revisions).find((r) => r.commit === revision) ?? repo.revisions[revision];
    if (!found) return fail(404, 'RevisionNotFound');
    if (api) {
      const siblings = Object.keys(found.files).map((rfilename) => ({ rfilename }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: repoId, sha: found.commit, siblings }));
      return;
    }
    const file = resolve![3]!;
    const content = found.files[file];
    if (content === undefined) return fail(404, 'EntryNotFound');
    const data = Buffer.from(content);
    const sha = createHash('sha256').update(data).digest('hex');
    if (repo.lfs?.includes(file)) {
      blobs.set(sha, data);
      res.writeHead(302, { location: `/cdn/${sha}`, 'x-linked-etag': `"${sha}"`, 'x-repo-commit': found.commit }).end();
      return;
    }
    const etag = createHash('sha1').update(data).digest('hex');
    res.writeHead(200, { etag: `"${etag}"`, 'content-length': data.length, 'x-repo-commit': found.commit }).end(data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
