// `--use-remote-indexer` (reference/disagg-router.md §3.3, the consumer): a kv-routed model keeps no
// local indexer and asks, per request, the indexer that another router serves with --serve-indexer
// on the model's worker namespace and component (`kv_indexer_query`, round robin over the serving
// instances). Without an answer (none served, a timeout, an `{"Error":…}`) the request is routed on
// load alone; that is warned about once per outage of the model's indexer, never per request.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../observability/index.js';
import { readTieredScores, type RemoteMatches, type TieredMatches } from '../../router/index.js';
import type { EndpointInstance, RequestPlaneClient } from '../../runtime/index.js';

/** How long a request waits for the served indexer before it is routed on load alone. */
export const REMOTE_INDEXER_TIMEOUT_MS = 1000;

export interface RemoteIndexerOptions {
  model: string;
  /** The `kv_indexer_query` instances registered on the model's worker component now. */
  instances: () => readonly EndpointInstance[];
  client: RequestPlaneClient;
  logger: Logger;
  timeoutMs?: number;
}

export class RemoteIndexer implements RemoteMatches {
  private next = 0;
  /** Set while the indexer is unavailable, so an outage is warned about once. */
  private unavailable = false;

  constructor(private readonly options: RemoteIndexerOptions) {}

  async query(localHashes: readonly bigint[], signal: AbortSignal): Promise<TieredMatches | null> {
    const instances = this.options.instances();
    if (instances.length === 0) return this.failed('no router serves the KV indexer (--serve-indexer) on the workers\' component');
    const target = instances[this.next++ % instances.length]!;
    const ask = new AbortController();
    const timer = setTimeout(() => ask.abort(), this.options.timeoutMs ?? REMOTE_INDEXER_TIMEOUT_MS);
    const stop = (): void => ask.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const answer = await this.firstItem(target, localHashes, ask.signal);
      const matches = readTieredScores(answer);
      if ('error' in matches) return this.failed(matches.error);
      this.recovered();
      return matches;
    } catch (err) {
      // The client gave up on its request: nothing is wrong with the indexer.
      if (signal.aborted) return null;
      return this.failed(ask.signal.aborted ? 'no answer in time' : (err as Error).message);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  /** The `data` of the served indexer's one answer item. */
  private async firstItem(target: EndpointInstance, localHashes: readonly bigint[], signal: AbortSignal): Promise<unknown> {
    const request = { model_name: this.options.model, block_hashes: localHashes, device_only: false };
    for await (const item of this.options.client.stream(target, request, { requestId: randomUUID(), signal, exactIntegers: true })) {
      return (item as { data?: unknown } | null)?.data;
    }
    throw new Error('the served indexer ended without an answer');
  }

  private failed(reason: string): null {
    if (!this.unavailable) {
      this.unavailable = true;
      this.options.logger.warn({ model: this.options.model, reason }, 'remote KV indexer unavailable: routing on load alone until it answers');
    }
    return null;
  }

  private recovered(): void {
    if (!this.unavailable) return;
    this.unavailable = false;
    this.options.logger.info({ model: this.options.model }, 'remote KV indexer answers again');
  }
}
