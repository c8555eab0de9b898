// The router policies by name, one row per router mode (grpc-js registers its load-balancing
// policies the same way): each row says what the policy needs wired around it, how to build it, and
// what it offers the wiring (a KV event sink, replica sharing).
// The names come from protocols/names/router-modes.ts; the mapped type makes this table cover each of
// them exactly once.
import { InternalError, ROUTER_MODES, ValidationError, type RouterMode } from '../../protocols/index.js';
import { DirectPolicy, RandomPolicy, RoundRobinPolicy } from './basic-policies.js';
import { KvRouterPolicy, type KvRouterOptions } from './kv-policy.js';
import { DeviceAwareWeightedPolicy, LeastLoadedPolicy, PowerOfTwoPolicy } from './load-policies.js';
import type { LoadTracker } from '../load-tracker.js';
import type { PolicyProvides } from './capabilities.js';
import type { RouterPolicy } from './policy.js';

/**
 * What a policy needs around it:
 * - `loadMetrics`: the router's LoadTracker (requests in flight per instance), which it reads;
 * - `kvEvents`: its workers' KV events; the row provides the sink the wiring feeds them to;
 * - `queue`: it may hold requests back before routing (the policy's `admission`).
 */
export type PolicyNeed = 'loadMetrics' | 'kvEvents' | 'queue';

/** KV routing settings; `blockSize` is the model's KV block size. */
export type KvSettings = Partial<KvRouterOptions> & { blockSize: number };

export interface RouterPolicyDeps {
  /** The router's load tracker: the load-based modes read it. */
  load?: LoadTracker;
  kv?: KvSettings;
  cudaToCpuRatio?: number;
}

/** What a factory may ask for; each getter fails clearly when the caller did not provide it. */
class PolicyInputs {
  constructor(
    private readonly mode: RouterMode,
    private readonly deps: RouterPolicyDeps,
  ) {}

  load(): LoadTracker {
    if (!this.deps.load) throw new InternalError(`${this.mode} routing needs the PushRouter's load tracker`);
    return this.deps.load;
  }

  kv(): KvSettings {
    if (!this.deps.kv) throw new InternalError(`${this.mode} router mode needs the kv block size`);
    return this.deps.kv;
  }

  get cudaToCpuRatio(): number | undefined {
    return this.deps.cudaToCpuRatio;
  }
}

/** A policy that never reads the request: it routes any kind (LLM and tensor models). */
type AnyRequestPolicy = RouterPolicy<unknown, unknown>;

interface PolicyRegistration<P extends RouterPolicy = RouterPolicy> {
  readonly needs: readonly PolicyNeed[];
  create(inputs: PolicyInputs): P;
  /** What the built policy offers the wiring; absent: nothing. */
  provides?(policy: P): PolicyProvides;
}

const POLICIES = {
  'round-robin': { needs: [], create: (): AnyRequestPolicy => new RoundRobinPolicy() },
  random: { needs: [], create: (): AnyRequestPolicy => new RandomPolicy() },
  kv: {
    needs: ['kvEvents', 'queue'],
    create: (i: PolicyInputs): KvRouterPolicy => new KvRouterPolicy(i.kv()),
    provides: (policy: KvRouterPolicy): PolicyProvides => ({ kvEvents: policy.kvEvents, replicas: policy }),
  },
  direct: { needs: [], create: (): AnyRequestPolicy => new DirectPolicy() },
  'least-loaded': { needs: ['loadMetrics'], create: (i: PolicyInputs): AnyRequestPolicy => new LeastLoadedPolicy(i.load()) },
  'device-aware-weighted': {
    needs: ['loadMetrics'],
    create: (i: PolicyInputs): AnyRequestPolicy => new DeviceAwareWeightedPolicy(i.load(), i.cudaToCpuRatio),
  },
  'power-of-two': { needs: ['loadMetrics'], create: (i: PolicyInputs): AnyRequestPolicy => new PowerOfTwoPolicy(i.load()) },
} as const satisfies { readonly [M in RouterMode]: PolicyRegistration };

/** The policy type a mode builds: the request-agnostic modes route tensor models too. */
export type PolicyFor<M extends RouterMode> = ReturnType<(typeof POLICIES)[M]['create']>;

/** A policy with what its row says it offers the wiring around it. */
export interface BuiltPolicy<P = RouterPolicy> {
  readonly policy: P;
  readonly provides: PolicyProvides;
}

const NOTHING: PolicyProvides = Object.freeze({});

function registration(mode: RouterMode): PolicyRegistration {
  if (!Object.hasOwn(POLICIES, mode)) {
    throw new ValidationError(`unknown router mode '${String(mode)}': expected one of ${ROUTER_MODES.join(', ')}`);
  }
  return POLICIES[mode];
}

/** The policy registered under `mode`, built from `deps`, and what it offers; throws when a need is not provided. */
export function buildRouterPolicy<M extends RouterMode>(mode: M, deps?: RouterPolicyDeps): BuiltPolicy<PolicyFor<M>>;
export function buildRouterPolicy(mode: RouterMode, deps: RouterPolicyDeps = {}): BuiltPolicy {
  const row: PolicyRegistration = registration(mode);
  const policy = row.create(new PolicyInputs(mode, deps));
  return { policy, provides: row.provides?.(policy) ?? NOTHING };
}

/** The policy registered under `mode`, built from `deps`; throws when a need is not provided. */
export function createRouterPolicy<M extends RouterMode>(mode: M, deps?: RouterPolicyDeps): PolicyFor<M>;
export function createRouterPolicy(mode: RouterMode, deps: RouterPolicyDeps = {}): RouterPolicy {
  return buildRouterPolicy(mode, deps).policy;
}

/** What the mode's policy needs wired around it. */
export function routerPolicyNeeds(mode: RouterMode): readonly PolicyNeed[] {
  return registration(mode).needs;
}
