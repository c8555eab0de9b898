import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fetchModelFiles, hubSettings, loadDefaultModelCard, loadModelCard, terminalProgress, type HubSettings } from '../../src/models/index.js';
import { ForbiddenError, NotFoundError, parseRepoRef, ServiceUnreachableError, UnauthenticatedError, ValidationError } from '../../src/protocols/index.js';
import { freePort } from '../support/processes.js';
import { startStandInHub, type StandInHub } from '../support/stand-in-hub.js';

const COMMIT = 'a'.repeat(40);
const V1_COMMIT = 'b'.repeat(40);
const tokenizerJson = readFileSync(loadDefaultModelCard().tokenizerJsonPath);
const modelFiles = {
  'config.json': JSON.stringify({ max_position_embeddings: 4096 }),
  'tokenizer.json': tokenizerJson,
  'tokenizer_config.json': JSON.stringify({ eos_token: '<|im_end|>' }),
  'generation_config.json': JSON.stringify({ eos_token_id: 151645 }),
  'model.safetensors': 'weights that must never be fetched',
  'README.md': 'not a model file',
};

let hub: StandInHub;
const homes: string[] = [];

before(async () => {
  hub = await startStandInHub({
    'acme/tiny': {
      revisions: { main: { commit: COMMIT, files: modelFiles }, v1: { commit: V1_COMMIT, files: { ...modelFiles, 'config.json': JSON.stringify({ max_position_embeddings: 1024 }) } } },
      lfs: ['tokenizer.json', 'model.safetensors'],
    },
    'acme/gated': { revisions: { main: { commit: COMMIT, files: modelFiles } }, token: 'hf_secret' },
    'acme/weights-only': { revisions: { main: { commit: COMMIT, files: { 'config.json': '{}', 'model.safetensors': 'w' } } } },
  });
});
after(async () => {
  await hub.close();
  homes.forEach((home) => rmSync(home, { recursive: true, force: true }));
});

function settings(extra: Partial<HubSettings> = {}): HubSettings {
  const home = mkdtempSync(join(tmpdir(), 'hf-home-'));
  homes.push(home);
  return { ...hubSettings({ hfEndpoint: hub.endpoint, hfHome: home }), ...extra };
}

function requestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; paths: string[] }> {
  const start = hub.requests.length;
  return run().then((result) => ({ result, paths: hub.requests.slice(start).map((r) => r.path) }));
}

const tiny = parseRepoRef('acme/tiny')!;

describe('parseRepoRef', () => {
  it('reads org/name and org/name@rev; an explicit revision wins', () => {
    assert.deepEqual(parseRepoRef('Qwen/Qwen3-0.6B'), { repo: 'Qwen/Qwen3-0.6B', revision: 'main' });
    assert.deepEqual(parseRepoRef('Qwen/Qwen3-0.6B@v2'), { repo: 'Qwen/Qwen3-0.6B', revision: 'v2' });
    assert.deepEqual(parseRepoRef('Qwen/Qwen3-0.6B@v2', 'dev'), { repo: 'Qwen/Qwen3-0.6B', revision: 'dev' });
  });

  it('refuses paths that are not repository ids', () => {
    for (const path of ['/models/qwen', './qwen/x', 'qwen', 'a/b/c', '../x', 'a/..']) assert.equal(parseRepoRef(path), null, path);
  });
});

describe('fetchModelFiles', () => {
  it('fetches config and tokenizer files, never weights, into the Hugging Face cache layout', async () => {
    const s = settings();
    const { result, paths } = await requestsDuring(() => fetchModelFiles(tiny, s));
    assert.equal(result.downloaded, true);
    assert.equal(result.commit, COMMIT);
    const repoDir = join(s.cacheDir, 'models--acme--tiny');
    assert.equal(result.dir, join(repoDir, 'snapshots', COMMIT));
    assert.equal(readFileSync(join(repoDir, 'refs', 'main'), 'utf8'), COMMIT);
    assert.ok(!paths.some((p) => p.includes('model.safetensors') || p.includes('README.md')), paths.join(' '));
    assert.ok(!existsSync(join(result.dir, 'model.safetensors')));
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json']) {
      const link = join(result.dir, file);
      assert.ok(lstatSync(link).isSymbolicLink(), file);
      assert.match(readlinkSync(link), /^\.\.\/\.\.\/blobs\/[0-9a-f]+$/);
    }
    // The LFS file is named by the etag of the first answer, before the CDN redirect.
    assert.ok(existsSync(join(repoDir, 'blobs', createHash('sha256').update(tokenizerJson).digest('hex'))));
    const card = loadModelCard(result.dir, { displayName: 'acme/tiny' });
    assert.equal(card.contextLength, 4096);
  });

  it('reuses the cache on the next start without touching the network, offline too', async () => {
    const s = settings();
    await fetchModelFiles(tiny, s);
    const again = await requestsDuring(() => fetchModelFiles(tiny, s));
    assert.deepEqual(again.paths, []);
    assert.equal(again.result.downloaded, false);
    const offline = await requestsDuring(() => fetchModelFiles(tiny, { ...s, offline: true }));
    assert.deepEqual(offline.paths, []);
    assert.equal(offline.result.commit, COMMIT);
  });

  it('offline without the files fails naming the repository, the cache and the fixes', async () => {
    const s = settings({ offline: true });
    const { paths } = await requestsDuring(() =>
      assert.rejects(fetchModelFiles(tiny, s), (err: Error) => {
        assert.ok(err instanceof NotFoundError);
        assert.match(err.message, /acme\/tiny \(revision main\) is not in the cache at .* HF_HUB_OFFLINE=1 .*--model-path DIR/);
        return true;
      }),
    );
    assert.deepEqual(paths, []);
  });

  it('fetches a revision by branch or tag, and by commit', async () => {
    const s = settings();
    const v1 = await fetchModelFiles(parseRepoRef('acme/tiny@v1')!, s);
    assert.equal(v1.commit, V1_COMMIT);
    assert.equal(readFileSync(join(s.cacheDir, 'models--acme--tiny', 'refs', 'v1'), 'utf8'), V1_COMMIT);
    assert.equal(loadModelCard(v1.dir).contextLength, 1024);
    const byCommit = await fetchModelFiles({ repo: 'acme/tiny', revision: COMMIT }, s);
    assert.equal(loadModelCard(byCommit.dir).contextLength, 4096);
    await assert.rejects(fetchModelFiles({ repo: 'acme/tiny', revision: 'nope' }, s), (err: Error) => err instanceof NotFoundError && /acme\/tiny has no revision nope/.test(err.message));
    await assert.rejects(fetchModelFiles({ repo: 'acme/tiny', revision: '../../etc' }, s), ValidationError);
  });

  it('a gated repository needs HF_TOKEN, sent as a Bearer token', async () => {
    const gated = parseRepoRef('acme/gated')!;
    await assert.rejects(fetchModelFiles(gated, settings()), (err: Error) => err instanceof UnauthenticatedError && /acme\/gated .*HF_TOKEN/.test(err.message));
    await assert.rejects(fetchModelFiles(gated, settings({ token: 'hf_wrong' })), ForbiddenError);
    const start = hub.requests.length;
    const fetched = await fetchModelFiles(gated, settings({ token: 'hf_secret' }));
    assert.ok(existsSync(join(fetched.dir, 'tokenizer.json')));
    assert.ok(hub.requests.slice(start).every((r) => r.authorization === 'Bearer hf_secret'));
  });

  it('reads the token saved in HF_HOME when HF_TOKEN is unset', () => {
    const home = mkdtempSync(join(tmpdir(), 'hf-home-'));
    homes.push(home);
    writeFileSync(join(home, 'token'), 'hf_saved\n');
    assert.equal(hubSettings({ hfHome: home }).token, 'hf_saved');
    assert.equal(hubSettings({ hfHome: home, hfToken: 'hf_env' }).token, 'hf_env');
  });

  it('an unknown repository fails naming it and the hub', async () => {
    await assert.rejects(fetchModelFiles(parseRepoRef('acme/missing')!, settings()), (err: Error) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.message, `Hugging Face repository acme/missing not found at ${hub.endpoint} (a private repository needs HF_TOKEN)`);
      return true;
    });
  });

  it('a repository without tokenizer.json fails saying so', async () => {
    await assert.rejects(fetchModelFiles(parseRepoRef('acme/weights-only')!, settings()), /acme\/weights-only \(revision main\) has no tokenizer.json/);
  });

  it('an unreachable hub is a ServiceUnreachableError naming the endpoint and the fixes', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    await assert.rejects(fetchModelFiles(tiny, settings({ endpoint })), (err: Error) => {
      assert.ok(err instanceof ServiceUnreachableError);
      assert.equal(err.endpoint, endpoint);
      assert.match(`${err.message}: ${err.fix}`, /cannot reach the Hugging Face hub at http:\/\/127\.0\.0\.1:\d+ .*HF_HUB_OFFLINE=1.*--model-path DIR/);
      return true;
    });
  });
});

describe('terminalProgress', () => {
  it('draws a bar per file on a terminal and nothing elsewhere', async () => {
    const written: string[] = [];
    const s = settings();
    await fetchModelFiles(tiny, s, { progress: terminalProgress({ isTTY: true, write: (t: string) => written.push(t) }, 'acme/tiny') });
    const text = written.join('');
    assert.match(text, /acme\/tiny tokenizer\.json \[#{24}\] 100% /);
    assert.match(text, /acme\/tiny config\.json/);
    const piped: string[] = [];
    await fetchModelFiles(tiny, settings(), { progress: terminalProgress({ isTTY: false, write: (t: string) => piped.push(t) }, 'acme/tiny') });
    assert.deepEqual(piped, []);
  });
});

