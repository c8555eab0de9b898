// `--serve-indexer` (reference/disagg-router.md §3.3): the frontend answers other routers'
// questions about its KV indexer on the workers' own namespace and component, one indexer per
// model. `kv_indexer_query` takes `{"model_name","block_hashes":[u64],"device_only"}` (the prompt's
// local block hashes) and answers one item, `{"TieredScores":{"device":{"scores":[[{worker},n]],
// "frequencies":[]},"lower_tier":[[tier,{"hits":[[{worker},n]]}]]}}`, or `{"Error":…}`. In
// approximate mode `kv_indexer_record_routing_decision` takes another router's decision
// (`{"model_name","worker":{worker_id,dp_rank},"local_hashes","sequence_hashes"}`) and answers
// `"Recorded"`. `readTieredScores` decodes a query's answer on the asking side (`--use-remote-indexer`).
import { asU64 } from '../../runtime/codecs/index.js';
import type { EndpointHandler } from '../../runtime/request-plane/index.js';
import type { LowerTier, TieredMatches, WorkerOverlap } from '../kv/index.js';
import type { KvEventSink } from '../policies/index.js';

export const INDEXER_QUERY_ENDPOINT = 'kv_indexer_query';
export const INDEXER_RECORD_ENDPOINT = 'kv_indexer_record_routing_decision';

type Json = Record<string, unknown>;
type Source = Pick<KvEventSink, 'tieredMatches' | 'recordRoutingDecision'>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** u64 list, or null when any item is not one. */
function u64s(v: unknown): bigint[] | null {
  if (!Array.isArray(v)) return null;
  const out = v.map(asU64);
  return out.includes(null) ? null : (out as bigint[]);
}

const scored = (matches: readonly WorkerOverlap[]): [Json, number][] =>
  matches.map((m) => [{ worker_id: m.workerId, dp_rank: m.dpRank }, m.blocks]);

const LOWER_TIERS: ReadonlySet<string> = new Set<LowerTier>(['host_pinned', 'disk']);

/** `[[{worker_id,dp_rank},n],…]` as overlaps, or null when malformed (no tree sizes travel: 0). */
function readScores(v: unknown): WorkerOverlap[] | null {
  if (!Array.isArray(v)) return null;
  const out: WorkerOverlap[] = [];
  for (const item of v) {
    if (!Array.isArray(item) || !isRecord(item[0]) || !Number.isInteger(item[1])) return null;
    const workerId = asU64(item[0].worker_id);
    const dpRank = item[0].dp_rank ?? 0;
    if (workerId === null || !Number.isInteger(dpRank)) return null;
    out.push({ workerId, dpRank: dpRank as number, blocks: item[1] as number, treeSize: 0 });
  }
  return out;
}

/**
 * A served indexer's answer to `kv_indexer_query` as tiered matches, or the reason it is not one
 * (its `{"Error":…}`, or a shape this side does not know). Unknown lower tiers are skipped.
 */
export function readTieredScores(answer: unknown): TieredMatches | { error: string } {
  if (isRecord(answer) && typeof answer.Error === 'string') return { error: answer.Error };
  const tiered = isRecord(answer) && isRecord(answer.TieredScores) ? answer.TieredScores : null;
  const device = tiered && isRecord(tiered.device) ? readScores(tiered.device.scores) : null;
  const lowerItems = tiered?.lower_tier ?? [];
  if (!device || !Array.isArray(lowerItems)) return { error: 'not a TieredScores answer' };
  const lower: [LowerTier, WorkerOverlap[]][] = [];
  for (const item of lowerItems) {
    const hits = Array.isArray(item) && isRecord(item[1]) ? readScores(item[1].hits) : null;
    if (!hits) return { error: 'not a TieredScores answer' };
    if (LOWER_TIERS.has(item[0])) lower.push([item[0] as LowerTier, hits]);
  }
  return { device, lower };
}

/** The models one worker component's served indexer answers for. */
export class ServedIndexer {
  private readonly models = new Map<string, Source>();

  add(model: string, source: Source): void {
    this.models.set(model, source);
  }

  remove(model: string): void {
    this.models.delete(model);
  }

  query(request: unknown): Json {
    const source = this.sourceOf(request);
    if ('Error' in source) return source;
    const hashes = u64s((request as Json).block_hashes);
    if (hashes === null) return { Error: 'block_hashes must be a list of u64 block hashes' };
    const matches = source.model.tieredMatches(hashes, (request as Json).device_only === true);
    return {
      TieredScores: {
        device: { scores: scored(matches.device), frequencies: [] },
        lower_tier: matches.lower.map(([tier, hits]) => [tier, { hits: scored(hits) }]),
      },
    };
  }

  record(request: unknown): Json | string {
    const source = this.sourceOf(request);
    if ('Error' in source) return source;
    const r = request as Json;
    const worker = isRecord(r.worker) ? asU64(r.worker.worker_id) : null;
    const local = u64s(r.local_hashes);
    const seq = u64s(r.sequence_hashes);
    if (worker === null || local === null || seq === null || seq.length !== local.length) {
      return { Error: 'expected worker {worker_id, dp_rank}, local_hashes and sequence_hashes of one length' };
    }
    return source.model.recordRoutingDecision(worker, local, seq) ? 'Recorded' : { Error: 'this indexer applies KV events; routing decisions are not recorded' };
  }

  /** The endpoint handler of `answer` (query or record): one Annotated item, u64s exact both ways. */
  handler(answer: (request: unknown) => unknown): EndpointHandler {
    const serve = async function* (request: unknown): AsyncGenerator<unknown> {
      yield { data: answer(request) };
    };
    return Object.assign(serve, { exactIntegers: true });
  }

  private sourceOf(request: unknown): { model: Source } | { Error: string } {
    const name = isRecord(request) ? request.model_name : undefined;
    if (typeof name !== 'string') return { Error: 'model_name is required' };
    const model = this.models.get(name);
    return model ? { model } : { Error: `served indexer model ${name} is not registered` };
  }
}
