// --router-tracking-hash and --shared-cache-*: what the flags make of the routers, and how a
// configuration that cannot work is refused at startup, naming the flag.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, parseCommandLine, type Config } from '../../src/config/index.js';
import { assertRouterSettings, routerSettings } from '../../src/launch/model-settings.js';
import { buildModelRouter } from '../../src/models/assembly/index.js';
import { loadDefaultModelCard } from '../../src/models/index.js';
import type { EngineClient, PreprocessedRequest } from '../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../src/protocols/index.js';
import { KvRouterPolicy } from '../../src/router/index.js';
import { blockKey, rankKey } from '../../src/router/kv/index.js';

const dir = mkdtempSync(join(tmpdir(), 'router-tracking-'));
const keyFile = (bytes: number, fill = 0x5a): string => {
  const path = join(dir, `key-${bytes}-${fill}`);
  writeFileSync(path, Buffer.alloc(bytes, fill));
  return path;
};

function config(args: string[], env: Record<string, string> = {}): Config {
  const parsed = parseCommandLine(['frontend', '--router-mode', 'kv', ...args], env);
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).config;
}

function refused(args: string[], expected: RegExp, env: Record<string, string> = {}): void {
  assert.throws(() => assertRouterSettings(config(args, env)), (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, expected);
    return true;
  });
}

const PROMPT = Array.from({ length: 16 }, (_, i) => 40 + i);
const request = (): PreprocessedRequest => ({ model: 'm', token_ids: PROMPT, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] });
const idle: EngineClient = { generate: async function* () {} };

/** The blocks the model's router tracks on its worker after routing the prompt once. */
function trackedBlocks(cfg: Config, model = 'm'): { publicHeld: boolean; policy: KvRouterPolicy } {
  const policy = buildModelRouter(routerSettings(cfg), loadDefaultModelCard({ displayName: model, kvCacheBlockSize: 4 })).router.policy as KvRouterPolicy;
  const instance = { id: 1n, client: idle };
  policy.track(policy.select([instance], request()), request(), 'r1');
  const publicChain = computeSequenceHashes(computeLocalBlockHashes(PROMPT, 4));
  return { publicHeld: policy.sequences.holds(rankKey(1n, 0), blockKey(publicChain[0]!)), policy };
}

test('keyed tracking replaces the public identities of tracked blocks; the same key and id give the same ones', () => {
  const file = keyFile(32);
  const keyed = config(['--router-tracking-hash', 'keyed-xxh3-v1', '--router-tracking-key-file', file, '--router-tracking-key-id', '2026-01']);
  assertRouterSettings(keyed);
  assert.equal(trackedBlocks(config([])).publicHeld, true, 'public mode tracks the public chain');
  assert.equal(trackedBlocks(keyed).publicHeld, false, 'keyed mode does not');
  const key = routerSettings(keyed).trackingKey!;
  const again = routerSettings(config([], { DYN_ROUTER_TRACKING_HASH: 'keyed-xxh3-v1', DYN_ROUTER_TRACKING_KEY_FILE: file, DYN_ROUTER_TRACKING_KEY_ID: '2026-01' })).trackingKey!;
  const hashes = (k: typeof key, model: string) => k.scoped({ model, routingGroup: 'default' }).sequenceHashes(PROMPT, 4, {}, []);
  assert.deepEqual(hashes(again, 'm'), hashes(key, 'm'), 'from the env vars alike');
  assert.notDeepEqual(hashes(key, 'other'), hashes(key, 'm'), 'scoped by model');
  const rotated = routerSettings(config(['--router-tracking-hash', 'keyed-xxh3-v1', '--router-tracking-key-file', file, '--router-tracking-key-id', '2026-02'])).trackingKey!;
  assert.notDeepEqual(hashes(rotated, 'm'), hashes(key, 'm'), 'a new key id is a new epoch');
  // Overlaps still come from the public hashes: keyed tracking changes nothing the indexer sees.
  const { policy } = trackedBlocks(keyed);
  const local = computeLocalBlockHashes(PROMPT, 4);
  const chain = computeSequenceHashes(local);
  policy.applyKvEvent(1n, { event_id: 1, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((tokens_hash, i) => ({ block_hash: chain[i]!, tokens_hash, mm_extra_info: null })) } } });
  policy.select([{ id: 1n, client: idle }], request());
  assert.equal(policy.lastDecision!.overlapBlocks, 4);
});

test('keyed tracking that cannot work stops startup naming the flag', () => {
  const keyed = ['--router-tracking-hash', 'keyed-xxh3-v1'];
  refused(keyed, /--router-tracking-hash keyed-xxh3-v1 requires --router-tracking-key-file/);
  refused([...keyed, '--router-tracking-key-file', keyFile(32)], /requires a nonempty --router-tracking-key-id/);
  refused([...keyed, '--router-tracking-key-file', keyFile(32), '--router-tracking-key-id', ' 2026 '], /requires a nonempty --router-tracking-key-id without surrounding spaces/);
  refused([...keyed, '--router-tracking-key-file', keyFile(31), '--router-tracking-key-id', 'a'], /--router-tracking-key-file must contain exactly 32 raw bytes; .* has 31/);
  refused([...keyed, '--router-tracking-key-file', join(dir, 'absent'), '--router-tracking-key-id', 'a'], /--router-tracking-key-file .*absent cannot be read/);
  refused(['--router-tracking-key-id', 'a'], /--router-tracking-key-file and --router-tracking-key-id require --router-tracking-hash keyed-xxh3-v1/);
  assert.throws(() => config(['--router-tracking-hash', 'keyed']), /--router-tracking-hash must be one of public-xxh3-v1, keyed-xxh3-v1/);
});

test('shared cache flags reach the kv routers; out-of-range or misplaced ones are refused', () => {
  assert.deepEqual(
    (({ sharedCacheType, sharedCacheMultiplier }) => ({ sharedCacheType, sharedCacheMultiplier }))(routerSettings(config(['--shared-cache-type', 'hicache'])).kv),
    { sharedCacheType: 'hicache', sharedCacheMultiplier: 0.5 },
  );
  const policy = buildModelRouter(routerSettings(config(['--shared-cache-type', 'hicache', '--shared-cache-multiplier', '0.3'])), loadDefaultModelCard({ displayName: 'm' })).router
    .policy as KvRouterPolicy;
  assert.ok(policy.sharedPool, 'the router keeps a shared-pool index');
  assert.equal(policy.options.sharedCacheMultiplier, 0.3);
  assert.throws(() => config(['--shared-cache-multiplier', '1.5']), /--shared-cache-multiplier must be a number between 0 and 1, got 1\.5/);
  assert.throws(() => config(['--shared-cache-type', 'mooncake']), /--shared-cache-type must be one of none, hicache/);
  assert.throws(
    () => assertRouterSettings((parseCommandLine(['frontend', '--shared-cache-type', 'hicache'], {}) as { config: Config }).config),
    /--shared-cache-type hicache requires --router-mode kv \(got --router-mode round-robin\)/,
  );
  assert.equal(routerSettings(config(['--load-aware', '--shared-cache-type', 'hicache'])).kv.sharedCacheType, 'none', 'the load-aware preset turns the shared cache off, as upstream');
});

test("the policy file's router: section sets them too, and wins over the flags", () => {
  const file = join(dir, 'policy.yaml');
  const key = keyFile(32, 0x11);
  writeFileSync(file, `router:\n  shared_cache_type: hicache\n  router_tracking_hash: keyed-xxh3-v1\n  router_tracking_key_file: ${key}\n  router_tracking_key_id: epoch-7\n`);
  const settings = routerSettings(config(['--router-policy-config', file, '--shared-cache-type', 'none']));
  assert.equal(settings.kv.sharedCacheType, 'hicache');
  assert.equal(settings.trackingKey?.keyId, 'epoch-7');
});
