// The router policy file and the router flags around it: what they make of the routers' settings,
// the precedence of the per-stage selections, the deprecated flags, conditional disaggregation's
// JSON, and how a bad file is refused (file, line and key).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, parseCommandLine, type Config } from '../../src/config/index.js';
import { assertRouterSettings, routerSettings } from '../../src/launch/model-settings.js';
import { buildModelRouter } from '../../src/models/assembly/index.js';
import { loadDefaultModelCard } from '../../src/models/index.js';
import { KvRouterPolicy } from '../../src/router/index.js';

const dir = mkdtempSync(join(tmpdir(), 'router-policy-'));
let files = 0;

function policyFile(yaml: string): string {
  const path = join(dir, `policy-${++files}.yaml`);
  writeFileSync(path, yaml);
  return path;
}

function parse(args: string[], env: Record<string, string> = {}) {
  const parsed = parseCommandLine(['frontend', ...args], env);
  assert.equal(parsed.kind, 'run');
  return parsed as Extract<typeof parsed, { kind: 'run' }>;
}

const config = (args: string[], env: Record<string, string> = {}): Config => parse(args, env).config;

function refused(args: string[], expected: RegExp, env: Record<string, string> = {}): void {
  assert.throws(() => assertRouterSettings(config(args, env)), (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, expected);
    return true;
  });
}

const FULL = `# shared settings, the upstream names
router:
  use_kv_events: false
  router_ttl_secs: 60
default_policy_family: standard
uncached_isl_buckets:
  - {min_tokens: 0, bucket: short}
  - {min_tokens: 2048, bucket: long}
policy_classes:
  - name: standard_short
    policy_family: standard
    cache_bucket: short
    quantum: 2
  - name: standard_long
    policy_family: standard
    cache_bucket: long
    queue_policy: wspt
    quantum: 1
    prefill_busy_threshold_frac: 1.5
  - name: batch
    quantum: 1
    prefill_busy_threshold: 4096
    request_queue_limit_per_worker: 8
models:
  special/model:
    default_policy_family: only
    uncached_isl_buckets: [{min_tokens: 0, bucket: all}]
    policy_classes: [{name: only_all, policy_family: only, cache_bucket: all, quantum: 1}]
worker_selection:
  aggregated: balanced
  prefill: cache-first
  instances:
    - name: cache-first
      type: dynamo-two-tier-cost-fn
      parameters:
        cache_threshold: 0.3
    - name: balanced
      type: dynamo-default-cost-fn
      parameters: {overlap_score_credit: 0.5, router_temperature: 0.1}
`;

test('a policy file: its router settings win over the flags; its profiles and selections reach the routers', () => {
  const path = policyFile(FULL);
  const settings = routerSettings(config(['--router-mode', 'kv', '--router-ttl-secs', '30', '--router-policy-config', path]));
  assert.equal(settings.kv.useKvEvents, false);
  assert.equal(settings.kv.ttlSecs, 60, 'the file wins over --router-ttl-secs');
  assert.deepEqual(settings.workerSelection.aggregated, { type: 'dynamo-default-cost-fn', name: 'balanced', parameters: { overlap_score_credit: 0.5, router_temperature: 0.1 } });
  assert.deepEqual(settings.workerSelection.prefill, { type: 'dynamo-two-tier-cost-fn', name: 'cache-first', parameters: { cache_threshold: 0.3 } });
  assert.equal(settings.workerSelection.decode, null, 'an unselected stage keeps the built-in selector');
  const root = settings.policyProfiles.root!;
  assert.deepEqual(root.classes.map((c) => [c.name, c.queuePolicy, c.quantum, c.prefillBusyThreshold, c.prefillBusyThresholdFrac]), [
    ['standard_short', 'fcfs', 2, null, null],
    ['standard_long', 'wspt', 1, null, 1.5],
    ['batch', 'fcfs', 1, 4096, null],
  ]);
  assert.deepEqual(root.matrix!.explicit, { batch: 2 });
  assert.deepEqual(Object.keys(settings.policyProfiles.models), ['special/model']);

  // The routers built from them: the aggregated hop's weights are the instance's, the profile the model's own or the root.
  const card = loadDefaultModelCard({ displayName: 'special/model' });
  const { router } = buildModelRouter(settings, card);
  const policy = router.policy as KvRouterPolicy;
  assert.equal(policy.options.overlapScoreCredit, 0.5);
  assert.equal(policy.options.temperature, 0.1);
  assert.deepEqual(policy.queue.profile.classes.map((c) => c.name), ['only_all']);
  const other = buildModelRouter(settings, loadDefaultModelCard({ displayName: 'other' })).router.policy as KvRouterPolicy;
  assert.deepEqual(other.queue.profile.classes.map((c) => c.name), ['standard_short', 'standard_long', 'batch']);
});

test('without a file the queue flags make the one policy class, as before', () => {
  const settings = routerSettings(config(['--router-mode', 'kv', '--router-queue-threshold', '2', '--router-queue-policy', 'wspt']));
  const { router } = buildModelRouter(settings, loadDefaultModelCard({ displayName: 'm' }));
  const profile = (router.policy as KvRouterPolicy).queue.profile;
  assert.deepEqual(profile.classes.map((c) => [c.name, c.prefillBusyThresholdFrac, c.queuePolicy]), [['default', 2, 'wspt']]);
  assert.equal(profile.matrix, null);
});

test('stage selections: the stage flag, then DYN_ROUTER_WORKER_SELECTION_POLICY, then the file; default is the built-in selector', () => {
  const path = policyFile(FULL);
  const base = ['--router-mode', 'kv', '--router-policy-config', path];
  const global = routerSettings(config(base, { DYN_ROUTER_WORKER_SELECTION_POLICY: 'cache-first' })).workerSelection;
  assert.equal(global.aggregated!.name, 'cache-first');
  assert.equal(global.decode!.name, 'cache-first');
  const staged = routerSettings(config([...base, '--router-prefill-policy', 'default', '--router-decode-policy', 'balanced'], { DYN_ROUTER_WORKER_SELECTION_POLICY: 'cache-first' })).workerSelection;
  assert.equal(staged.prefill, null);
  assert.equal(staged.decode!.name, 'balanced');
  assert.equal(staged.aggregated!.name, 'cache-first');
  assert.equal(routerSettings(config(base, { DYN_ROUTER_WORKER_SELECTION_POLICY: 'default' })).workerSelection.aggregated, null);
  refused([...base, '--router-decode-policy', 'fastest'], /--router-decode-policy fastest is not a worker_selection instance of --router-policy-config \(instances: cache-first, balanced; 'default' is the built-in selector\)/);
  refused(['--router-mode', 'kv'], /DYN_ROUTER_WORKER_SELECTION_POLICY cache-first is not a worker_selection instance .*none configured/, { DYN_ROUTER_WORKER_SELECTION_POLICY: 'cache-first' });
});

test('each deprecated router flag still applies and logs one line naming what replaces it', () => {
  const parsed = parse([
    '--router-mode', 'kv', '--router-temperature', '0.3', '--router-kv-overlap-score-credit', '0.5', '--router-queue-threshold', '1.5',
    '--router-queue-policy', 'wspt', '--router-prefill-load-scale', '2',
  ], { DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT: '0.25' });
  const lines = parsed.warnings.filter((w) => /deprecated/.test(w));
  assert.equal(lines.length, 6);
  assert.ok(lines.some((w) => /^--router-temperature is deprecated .* router_temperature in the parameters of a dynamo-default-cost-fn worker_selection instance in --router-policy-config/.test(w)));
  assert.ok(lines.some((w) => /^--router-queue-threshold is deprecated .* policy_classes\[\]\.prefill_busy_threshold_frac/.test(w)));
  assert.ok(lines.some((w) => /^DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT is deprecated/.test(w)));
  const kv = routerSettings(parsed.config).kv;
  assert.deepEqual([kv.temperature, kv.overlapScoreCredit, kv.queueThreshold, kv.queuePolicy, kv.prefillLoadScale, kv.decodeActiveRequestWeight], [0.3, 0.5, 1.5, 'wspt', 2, 0.25]);
  assert.equal(parse(['--router-mode', 'kv']).warnings.length, 0, 'nothing set, nothing logged');
  assert.throws(() => parse(['--router-queue-policy', 'lcfs']), /--router-queue-policy lcfs is no longer available: upstream accepts only fcfs and wspt/);
});

test('--router-approximate-cache-policy lru bounds approximate mode: from the flag or the file, never with KV events', () => {
  assert.equal(routerSettings(config(['--router-mode', 'kv', '--no-router-kv-events', '--router-approximate-cache-policy', 'lru'])).kv.approximateCachePolicy, 'lru');
  const path = policyFile('router:\n  use_kv_events: false\n  router_approximate_cache_policy: lru\n');
  assert.equal(routerSettings(config(['--router-mode', 'kv', '--router-policy-config', path])).kv.approximateCachePolicy, 'lru');
  refused(['--router-mode', 'kv', '--router-approximate-cache-policy', 'lru'], /--router-approximate-cache-policy lru requires --no-router-kv-events/);
});

test('--router-predicted-ttl-secs predicts on route beside KV events; refused without them, dropped by --load-aware', () => {
  assert.equal(routerSettings(config(['--router-mode', 'kv', '--router-predicted-ttl-secs', '2.5'])).kv.predictedTtlSecs, 2.5);
  const path = policyFile('router:\n  router_predicted_ttl_secs: 4\n');
  assert.equal(routerSettings(config(['--router-mode', 'kv', '--router-policy-config', path])).kv.predictedTtlSecs, 4);
  refused(['--router-mode', 'kv', '--no-router-kv-events', '--router-predicted-ttl-secs', '2'], /--router-predicted-ttl-secs requires --router-kv-events/);
  assert.equal(routerSettings(config(['--load-aware', '--router-predicted-ttl-secs', '2'])).kv.predictedTtlSecs, null);
});

test('--load-aware is upstream preset: kv on load alone; a file router setting still wins', () => {
  const settings = routerSettings(config(['--load-aware']));
  assert.equal(settings.mode, 'kv');
  assert.deepEqual([settings.kv.overlapScoreCredit, settings.kv.useKvEvents, settings.kv.assumeKvReuse, settings.kv.trackActiveBlocks, settings.kv.trackPrefillTokens], [0, false, false, true, true]);
  const path = policyFile('router:\n  use_kv_events: true\n');
  assert.equal(routerSettings(config(['--load-aware', '--router-policy-config', path])).kv.useKvEvents, true);
});

test('--enable-session-prefix-index: off by default; the flag, its env var or the file turn it on; kv mode and the own indexer only', () => {
  const card = loadDefaultModelCard({ displayName: 'm' });
  const policyOf = (args: string[], env: Record<string, string> = {}) => buildModelRouter(routerSettings(config(args, env)), card).router.policy as KvRouterPolicy;
  assert.equal(routerSettings(config(['--router-mode', 'kv'])).kv.sessionPrefixIndex, false);
  assert.equal(policyOf(['--router-mode', 'kv']).sessionPrefixIndex, null);
  assert.notEqual(policyOf(['--router-mode', 'kv', '--enable-session-prefix-index']).sessionPrefixIndex, null);
  assert.notEqual(policyOf(['--router-mode', 'kv'], { DYN_ENABLE_SESSION_PREFIX_INDEX: 'true' }).sessionPrefixIndex, null);
  const path = policyFile('router:\n  enable_session_prefix_index: true\n');
  assert.equal(policyOf(['--router-mode', 'kv', '--router-policy-config', path]).sessionPrefixIndex!.maxSessions, 16_384);
  assertRouterSettings(config(['--router-mode', 'kv', '--enable-session-prefix-index']));
  refused(['--enable-session-prefix-index'], /--enable-session-prefix-index requires --router-mode kv \(got --router-mode round-robin\)/);
  refused(['--router-mode', 'kv', '--enable-session-prefix-index', '--use-remote-indexer'], /--enable-session-prefix-index needs the router's own indexer .* cannot be combined with --use-remote-indexer/);
});

test('a bad policy file is refused at startup naming the file, the line and the key', () => {
  const cases: [yaml: string, line: number, expected: RegExp][] = [
    ['router:\n  use_kv_events: false\npolcy_classes: []\n', 3, /polcy_classes: unknown key; expected one of router, default_policy_family/],
    [FULL.replace('queue_policy: wspt', 'queue_policy: lcfs'), 17, /policy_classes\[1\]\.queue_policy: must be one of fcfs, wspt, got 'lcfs'/],
    [FULL.replace('type: dynamo-two-tier-cost-fn', 'type: two-tier'), 34, /worker_selection\.instances\[0\]\.type: instance cache-first has unknown policy type 'two-tier'; dynamo-ts has: dynamo-default-cost-fn, dynamo-two-tier-cost-fn/],
    [FULL.replace('cache_threshold: 0.3', 'cache_affinity_threshold: 0.3'), 36, /worker_selection\.instances\[0\]\.parameters\.cache_affinity_threshold: unknown key; expected one of cache_threshold, balance_abs_threshold, balance_rel_threshold/],
    [FULL.replace('cache_threshold: 0.3', 'cache_threshold: 1.5'), 36, /worker_selection\.instances\[0\]\.parameters\.cache_threshold: must be a number <= 1, got 1\.5/],
    [FULL.replace('prefill: cache-first', 'prefill: fastest'), 31, /worker_selection\.prefill: 'fastest' is not a configured instance \(instances: cache-first, balanced/],
    [FULL.replace('cache_bucket: long', 'cache_bucket: longer'), 16, /policy_classes\[1\]\.cache_bucket: policy class standard_long names unknown cache bucket longer/],
    [FULL.replace('  - name: standard_short\n    policy_family: standard\n    cache_bucket: short\n    quantum: 2\n', ''), 9, /policy_classes: family standard has no policy class for bucket short/],
    [FULL.replace('quantum: 2', 'quantum: 0'), 13, /policy_classes\[0\]\.quantum: must be an integer >= 1, got 0/],
    ['router:\n  router_ttl_secs: 0\n', 2, /router\.router_ttl_secs must be a number > 0, got 0/],
    ['router:\n  use_kv_events: maybe\n', 2, /router\.use_kv_events: must be a boolean \(as --router-kv-events\), got 'maybe'/],
    ['router:\n  enable_session_prefix_index: maybe\n', 2, /router\.enable_session_prefix_index: must be a boolean \(as --enable-session-prefix-index\), got 'maybe'/],
    ['router:\n  router_tracking_hash: keyed\n', 2, /router\.router_tracking_hash must be one of public-xxh3-v1, keyed-xxh3-v1, got 'keyed'/],
    ['router:\n  router_approximate_cache_policy: lfu\n', 2, /router\.router_approximate_cache_policy must be one of ttl, lru, got 'lfu'/],
    ['worker_selection:\n  instances:\n    - name: default\n      type: dynamo-two-tier-cost-fn\n', 3, /worker_selection\.instances\[0\]\.name: the instance name 'default' is reserved for the built-in selector/],
    ['policy_classes:\n  - {name: a, quantum: 1\n', 3, /not valid YAML: /],
    ['', 1, /the file is empty/],
  ];
  for (const [yaml, line, expected] of cases) {
    const path = policyFile(yaml);
    refused(['--router-mode', 'kv', '--router-policy-config', path], new RegExp(`^--router-policy-config ${path.replace(/[.]/g, '\\.')}:${line}: ${expected.source}`));
  }
  refused(['--router-policy-config', policyFile('router:\n  use_kv_events: false\n')], /--router-policy-config configures the KV router: it needs --router-mode kv \(got --router-mode round-robin\)/);
  assert.throws(() => parse(['--router-policy-config', join(dir, 'missing.yaml')]), /--router-policy-config must be an existing file/);
});

test('conditional disaggregation: upstream defaults, its JSON checked field by field, and what it needs', () => {
  const on = ['--router-mode', 'kv', '--router-conditional-disagg'];
  assert.deepEqual(routerSettings(config(on)).conditionalDisagg, {
    policy: 'isl_bounding',
    effIslThreshold: 2048,
    effIslRatioThreshold: 0.7,
    prefillBusyThreshold: null,
    decodeBusyThreshold: null,
  });
  assert.equal(routerSettings(config(['--router-mode', 'kv'])).conditionalDisagg, null);
  const json = (value: string, extra: string[] = []) => [...on, ...extra, '--router-conditional-disagg-config', value];
  assert.deepEqual(routerSettings(config(json('{"policy":"isl_or_load","eff_isl_threshold":512,"decode_busy_threshold":0.9}', ['--router-queue-threshold', '3']))).conditionalDisagg, {
    policy: 'isl_or_load',
    effIslThreshold: 512,
    effIslRatioThreshold: 0.7,
    prefillBusyThreshold: 3,
    decodeBusyThreshold: 0.9,
  });
  refused(json('[1]'), /^--router-conditional-disagg-config must be a JSON object$/);
  refused(json('{"polcy":"x","zeta":1}'), /^--router-conditional-disagg-config has unknown field\(s\): polcy, zeta$/);
  refused(json('{"policy":"always"}'), /policy must be one of 'isl_bounding', 'prefill_load', 'isl_or_load', got "always"/);
  refused(json('{"eff_isl_ratio_threshold":1.5}'), /eff_isl_ratio_threshold must be a number in \[0\.0, 1\.0\]/);
  refused(json('{"eff_isl_threshold":10.5}'), /eff_isl_threshold must be an integer >= 0/);
  refused(json('{"policy":"prefill_load"}'), /conditional_disagg policy='prefill_load' needs prefill_busy_threshold, but neither .* nor --router-queue-threshold is set/);
  refused(['--router-mode', 'kv', '--router-conditional-disagg-config', '{}'], /--router-conditional-disagg-config requires --router-conditional-disagg/);
  refused(['--router-conditional-disagg'], /--router-conditional-disagg requires --router-mode=kv/);
  refused([...on, '--no-router-kv-events'], /--router-conditional-disagg requires --router-kv-events/);
});
