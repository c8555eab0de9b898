// Which workers are routable in Kubernetes discovery (reference/operate-faults.md §1.4, §1.5): a
// pod ready in an EndpointSlice AND described by a DynamoWorkerMetadata CR it owns. The join is by
// the CR's Pod owner (upstream's CRs are named like their pod, so this is upstream's join), and a
// CR from an earlier incarnation of the pod (another uid) does not count.
import type { KubeObject } from './kube-reflector.js';
import { metadataEntries, parseMetadata, type DiscoveryMetadata } from './kube-metadata.js';

export interface EndpointSliceLike extends KubeObject {
  endpoints?: Array<{ conditions?: { ready?: boolean }; targetRef?: { name?: string; uid?: string } }> | null;
}

export interface WorkerMetadataLike extends KubeObject {
  spec?: { data?: unknown };
}

/** Pod name → its uid ('' when no slice says), or CONFLICT when slices disagree on it. */
const CONFLICT = Symbol('conflicting pod uids');
type ReadyPods = Map<string, string | typeof CONFLICT>;

/**
 * Ready pods: an endpoint with `conditions.ready === true` and a target name. A pod listed by
 * several slices (resharding) stays ready while any of them says so; slices naming one pod with
 * different uids fail closed.
 */
export function readyPods(slices: Iterable<EndpointSliceLike>): ReadyPods {
  const ready: ReadyPods = new Map();
  for (const slice of slices) {
    for (const ep of slice.endpoints ?? []) {
      const name = ep.targetRef?.name;
      if (!name || ep.conditions?.ready !== true) continue;
      const uid = ep.targetRef?.uid ?? '';
      const seen = ready.get(name);
      if (seen === undefined || seen === '') ready.set(name, uid);
      else if (uid && seen !== uid) ready.set(name, CONFLICT);
    }
  }
  return ready;
}

function ownerPod(cr: KubeObject): { name: string; uid: string } {
  const owner = cr.metadata?.ownerReferences?.find((o) => o.kind === 'Pod');
  return { name: owner?.name ?? cr.metadata?.name ?? '', uid: owner?.uid ?? '' };
}

interface LastValid {
  crUid: string;
  ownerUid: string;
  meta: DiscoveryMetadata;
}

export class RoutableWorkers {
  /** Per CR name: its last parseable metadata, for a CR whose `spec.data` turns unreadable. */
  private readonly lastValid = new Map<string, LastValid>();

  /** The discovery keys and values of every routable worker. */
  entries(slices: Iterable<EndpointSliceLike>, crs: Iterable<WorkerMetadataLike>): Map<string, string> {
    const ready = readyPods(slices);
    const out = new Map<string, string>();
    const present = new Set<string>();
    for (const cr of crs) {
      const name = cr.metadata?.name ?? '';
      present.add(name);
      const meta = this.metadataOf(name, cr);
      const owner = ownerPod(cr);
      const readyUid = ready.get(owner.name);
      if (!meta || readyUid === undefined || readyUid === CONFLICT) continue;
      if (readyUid && owner.uid && readyUid !== owner.uid) continue;
      for (const [key, value] of metadataEntries(meta)) out.set(key, value);
    }
    for (const name of [...this.lastValid.keys()]) if (!present.has(name)) this.lastValid.delete(name);
    return out;
  }

  /** The CR's metadata; a null or unparsable one keeps the last valid metadata of the same CR and owner. */
  private metadataOf(name: string, cr: WorkerMetadataLike): DiscoveryMetadata | null {
    const crUid = cr.metadata?.uid ?? '';
    const ownerUid = ownerPod(cr).uid;
    const meta = parseMetadata(cr.spec?.data);
    if (meta) {
      this.lastValid.set(name, { crUid, ownerUid, meta });
      return meta;
    }
    const last = this.lastValid.get(name);
    return last && last.crUid === crUid && last.ownerUid === ownerUid ? last.meta : null;
  }
}
