// The DynamoWorkerMetadata custom resource (reference/operate-faults.md §1.1, §1.3): one per
// worker, named like the pod, owned by it, its `spec.data` holding the worker's discovery records
// in three maps keyed by the record's path (the discovery key without its bucket).
import { EVENT_CHANNELS_BUCKET, INSTANCES_BUCKET, MODELS_BUCKET } from './records.js';

export const DWM = {
  group: 'nvidia.com',
  version: 'v1alpha1',
  kind: 'DynamoWorkerMetadata',
  plural: 'dynamoworkermetadatas',
  shortName: 'dwm',
} as const;

export const DWM_API_VERSION = `${DWM.group}/${DWM.version}`;

/** Server-side apply field manager of the writer, as upstream's. */
export const FIELD_MANAGER = 'dynamo-worker';

/** `spec.data`'s maps and the discovery bucket each one holds. */
const MAP_BUCKETS = {
  endpoints: INSTANCES_BUCKET,
  model_cards: MODELS_BUCKET,
  event_channels: EVENT_CHANNELS_BUCKET,
} as const;

export type MetadataMap = keyof typeof MAP_BUCKETS;
const MAPS = Object.keys(MAP_BUCKETS) as MetadataMap[];

/** `spec.data`: path key → the record as upstream's DiscoveryInstance JSON. */
export type DiscoveryMetadata = Record<MetadataMap, Record<string, unknown>>;

export function emptyMetadata(): DiscoveryMetadata {
  return { endpoints: {}, model_cards: {}, event_channels: {} };
}

/** Which map and path a discovery key goes to; null for keys of no bucket the CR carries. */
export function metadataSlot(key: string): { map: MetadataMap; path: string } | null {
  for (const map of MAPS) {
    const bucket = `${MAP_BUCKETS[map]}/`;
    if (key.startsWith(bucket)) return { map, path: key.slice(bucket.length) };
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * `spec.data` read back; null when it is not an object. A null or missing map is empty: server-side
 * apply without a schema can turn `{}` into null, and the worker must not vanish for it.
 */
export function parseMetadata(data: unknown): DiscoveryMetadata | null {
  if (!isObject(data)) return null;
  const out = emptyMetadata();
  for (const map of MAPS) {
    const entries = data[map];
    if (isObject(entries)) out[map] = entries;
  }
  return out;
}

/** The discovery keys and JSON values a CR's metadata stands for. */
export function* metadataEntries(meta: DiscoveryMetadata): Iterable<[string, string]> {
  for (const map of MAPS) {
    for (const [path, value] of Object.entries(meta[map])) yield [`${MAP_BUCKETS[map]}/${path}`, JSON.stringify(value)];
  }
}

export interface OwnerPod {
  podName: string;
  podUid: string;
}

/** The whole CR as the writer applies it: owned by its pod, so Kubernetes deletes it with the pod. */
export function workerMetadataObject(crName: string, namespace: string, owner: OwnerPod, data: DiscoveryMetadata): Record<string, unknown> {
  return {
    apiVersion: DWM_API_VERSION,
    kind: DWM.kind,
    metadata: {
      name: crName,
      namespace,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: owner.podName, uid: owner.podUid, controller: crName === owner.podName, blockOwnerDeletion: false },
      ],
    },
    spec: { data },
  };
}
