import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPTIONS } from '../../../src/config/index.js';
import { InternalError, ROUTER_MODES, ValidationError, type RouterMode } from '../../../src/protocols/index.js';
import { buildRouterPolicy, createRouterPolicy, KvRouterPolicy, LoadTracker, routerPolicyNeeds, type WorkerInstance } from '../../../src/router/index.js';

const deps = () => ({ load: new LoadTracker(), kv: { blockSize: 4 } });
const engine = { async *generate() {} };
const instances: WorkerInstance[] = [1n, 2n, 3n].map((id) => ({ id, client: engine }));
const request = { model: 'm', token_ids: [1, 2, 3, 4], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };

test('every router mode has a registered policy that routes', () => {
  for (const mode of ROUTER_MODES) {
    const policy = createRouterPolicy(mode, deps());
    if (mode === 'direct') {
      assert.throws(() => policy.select(instances, request), ValidationError, 'direct only serves pinned requests');
      continue;
    }
    const chosen = policy.select(instances, request);
    assert.ok(instances.includes(chosen), mode);
  }
});

test('--router-mode offers exactly the registered names, in the same order', () => {
  const spec = OPTIONS.find((o) => o.key === 'routerMode');
  assert.ok(spec?.type === 'enum');
  assert.deepEqual(Object.keys(spec.choices), [...ROUTER_MODES]);
  assert.ok(Object.values(spec.choices).every((built) => built === true));
});

test('each policy declares its needs, and what it declares is what it offers', () => {
  assert.deepEqual(routerPolicyNeeds('kv'), ['kvEvents', 'queue']);
  for (const mode of ['least-loaded', 'power-of-two', 'device-aware-weighted'] as const) assert.deepEqual(routerPolicyNeeds(mode), ['loadMetrics']);
  for (const mode of ['round-robin', 'random', 'direct'] as const) assert.deepEqual(routerPolicyNeeds(mode), []);
  for (const mode of ROUTER_MODES) {
    const needs = routerPolicyNeeds(mode);
    const { policy, provides } = buildRouterPolicy(mode, deps());
    assert.equal(provides.kvEvents !== undefined, needs.includes('kvEvents'), `${mode}: kvEvents sink`);
    assert.equal(typeof policy.admission === 'function', needs.includes('queue'), `${mode}: admission queue`);
  }
  const kv = createRouterPolicy('kv', deps());
  assert.ok(kv instanceof KvRouterPolicy);
  assert.equal(kv.kvEvents, kv, 'the kv policy is its own KV event sink');
});

test('a policy whose needs are not provided fails at construction, naming the need', () => {
  for (const mode of ROUTER_MODES) {
    const needs = routerPolicyNeeds(mode);
    const build = () => createRouterPolicy(mode);
    if (needs.includes('loadMetrics')) assert.throws(build, new InternalError(`${mode} routing needs the PushRouter's load tracker`));
    else if (needs.includes('kvEvents')) assert.throws(build, new InternalError('kv router mode needs the kv block size'));
    else assert.doesNotThrow(build, mode);
  }
});

test('an unknown mode name fails clearly', () => {
  // A JavaScript caller (or a cast) can pass any string.
  const bogus = 'fancy' as RouterMode;
  const expected = (err: unknown) => err instanceof ValidationError && /^unknown router mode 'fancy': expected one of round-robin, random, kv, /.test(err.message);
  assert.throws(() => createRouterPolicy(bogus, deps()), expected);
  assert.throws(() => routerPolicyNeeds(bogus), expected);
  assert.throws(() => createRouterPolicy('toString' as RouterMode), ValidationError, 'inherited object keys are not modes');
});
