// The policy-class profiles of a router policy file: the root one (top-level default_policy_family,
// uncached_isl_buckets and policy_classes) and per-model ones under `models:`, which replace the
// root for their model. Every family needs one class per bucket; a class with neither family nor
// bucket is explicit, chosen only by a request's x-dynamo-meta-policy-class header.
import { SELECTABLE_QUEUE_POLICIES } from '../../protocols/index.js';
import type { ClassMatrix, PolicyClassSpec, PolicyProfile } from '../../router/index.js';
import type { YamlNode } from './yaml-node.js';

export const PROFILE_KEYS = ['default_policy_family', 'uncached_isl_buckets', 'policy_classes'] as const;

const CLASS_KEYS = [
  'name',
  'policy_family',
  'cache_bucket',
  'queue_policy',
  'quantum',
  'prefill_busy_threshold',
  'prefill_busy_threshold_frac',
  'request_queue_limit_per_worker',
  'raw_isl_token_queue_limit_per_worker',
  'cached_token_queue_limit_per_worker',
];

/** Per-model profiles replace the root one; a model without either gets the flags' single class. */
export interface PolicyProfiles {
  readonly root: PolicyProfile | null;
  readonly models: Readonly<Record<string, PolicyProfile>>;
}

function optionalCount(node: YamlNode | undefined): number | null {
  return node === undefined || node.isNull ? null : node.number({ integer: true, min: 0 });
}

interface ReadClass {
  readonly spec: PolicyClassSpec;
  readonly node: YamlNode;
  /** Null for an explicit class. */
  readonly cell: { readonly family: string; readonly bucket: string; readonly bucketNode: YamlNode } | null;
}

function readClass(node: YamlNode): ReadClass {
  const f = node.fields(CLASS_KEYS);
  const name = f.get('name')?.identifier('policy class') ?? node.fail('a policy class needs a name');
  const quantum = f.get('quantum')?.number({ integer: true, min: 1 }) ?? node.fail(`policy class ${name} needs a quantum (an integer >= 1)`);
  const frac = f.get('prefill_busy_threshold_frac');
  const spec: PolicyClassSpec = {
    name,
    queuePolicy: f.get('queue_policy')?.oneOf(SELECTABLE_QUEUE_POLICIES) ?? 'fcfs',
    quantum,
    prefillBusyThreshold: optionalCount(f.get('prefill_busy_threshold')),
    prefillBusyThresholdFrac: frac === undefined || frac.isNull ? null : frac.number({ min: 0 }),
    requestQueueLimitPerWorker: optionalCount(f.get('request_queue_limit_per_worker')),
    rawIslTokenQueueLimitPerWorker: optionalCount(f.get('raw_isl_token_queue_limit_per_worker')),
    cachedTokenQueueLimitPerWorker: optionalCount(f.get('cached_token_queue_limit_per_worker')),
  };
  const family = f.get('policy_family');
  const bucket = f.get('cache_bucket');
  if ((family === undefined) !== (bucket === undefined)) {
    node.fail(`policy class ${name} must name both policy_family and cache_bucket, or neither for an explicit class`);
  }
  const cell = family && bucket ? { family: family.identifier('policy family'), bucket: bucket.identifier('cache bucket'), bucketNode: bucket } : null;
  return { spec, node, cell };
}

function readBuckets(node: YamlNode): ClassMatrix['buckets'] {
  const buckets: { name: string; minTokens: number }[] = [];
  for (const item of node.items()) {
    const f = item.fields(['min_tokens', 'bucket']);
    const minTokens = f.get('min_tokens')?.number({ integer: true, min: 0 }) ?? item.fail('a bucket needs min_tokens');
    const name = f.get('bucket')?.identifier('cache bucket') ?? item.fail('a bucket needs a name (bucket)');
    if (buckets.length === 0 && minTokens !== 0) item.fail(`the first bucket must start at min_tokens 0, got ${minTokens}`);
    const previous = buckets[buckets.length - 1];
    if (previous && minTokens <= previous.minTokens) item.fail(`bucket floors must increase strictly: ${minTokens} after ${previous.minTokens}`);
    if (buckets.some((b) => b.name === name)) item.fail(`duplicate cache bucket ${name}`);
    buckets.push({ name, minTokens });
  }
  if (buckets.length === 0) node.fail('must list at least one bucket');
  return buckets;
}

/** One profile from its three keys (all present: `at` is where to report a missing one). */
export function readProfile(fields: ReadonlyMap<string, YamlNode>, at: YamlNode): PolicyProfile {
  const present = PROFILE_KEYS.filter((k) => fields.has(k));
  if (present.length !== PROFILE_KEYS.length) {
    at.fail(`a policy profile must set ${PROFILE_KEYS.join(', ')} together (missing: ${PROFILE_KEYS.filter((k) => !fields.has(k)).join(', ')})`);
  }
  const familyNode = fields.get('default_policy_family')!;
  const defaultFamily = familyNode.identifier('policy family');
  const buckets = readBuckets(fields.get('uncached_isl_buckets')!);
  const classesNode = fields.get('policy_classes')!;
  const read = classesNode.items().map(readClass);
  if (read.length === 0) classesNode.fail('must list at least one policy class');

  const classes: Record<string, Record<string, number>> = {};
  const explicit: Record<string, number> = {};
  const names = new Set<string>();
  read.forEach(({ spec, node, cell }, index) => {
    if (names.has(spec.name)) node.fail(`duplicate policy class ${spec.name}`);
    names.add(spec.name);
    if (cell === null) {
      explicit[spec.name] = index;
      return;
    }
    if (!buckets.some((b) => b.name === cell.bucket)) cell.bucketNode.fail(`policy class ${spec.name} names unknown cache bucket ${cell.bucket}`);
    const row = (classes[cell.family] ??= {});
    if (Object.hasOwn(row, cell.bucket)) node.fail(`two policy classes for family ${cell.family} and bucket ${cell.bucket}`);
    row[cell.bucket] = index;
  });
  for (const [name, index] of Object.entries(explicit)) {
    if (Object.hasOwn(classes, name)) read[index]!.node.fail(`explicit policy class ${name} has the name of a policy family`);
  }
  if (!Object.hasOwn(classes, defaultFamily)) familyNode.fail(`default_policy_family ${defaultFamily} is not the policy_family of any class`);
  for (const [family, row] of Object.entries(classes)) {
    for (const b of buckets) if (!Object.hasOwn(row, b.name)) classesNode.fail(`family ${family} has no policy class for bucket ${b.name}`);
  }
  return { classes: read.map((r) => r.spec), matrix: { defaultFamily, buckets, classes, explicit } };
}

/** The `models:` section: model name → profile. */
export function readModelProfiles(node: YamlNode): Record<string, PolicyProfile> {
  const models: Record<string, PolicyProfile> = {};
  if (node.value === null || typeof node.value !== 'object' || Array.isArray(node.value)) node.fail('must be a mapping of model names to profiles');
  for (const [model, profile] of node.fields(Object.keys(node.value))) {
    models[model] = readProfile(profile.fields(PROFILE_KEYS), profile);
  }
  return models;
}
