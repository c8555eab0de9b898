// `--serve-indexer`: each kv-routed model's indexer answers other routers on its workers' namespace
// and component (router/shared-state/served-indexer.ts). One served indexer per component, its endpoints
// registered through this frontend's runtime the first time a model of that component arrives.
import { INDEXER_QUERY_ENDPOINT, INDEXER_RECORD_ENDPOINT, ServedIndexer, type KvEventSink } from '../../router/index.js';
import type { EndpointHandler } from '../../runtime/index.js';

/** Registers one endpoint of this process (`runtime.namespace(ns).component(c).endpoint(e).serveEndpoint`). */
export type ServeEndpoint = (namespace: string, component: string, endpoint: string, handler: EndpointHandler) => Promise<void>;

export class ServedIndexers {
  private readonly byComponent = new Map<string, Promise<ServedIndexer>>();

  constructor(
    private readonly serve: ServeEndpoint,
    /** Approximate mode (--no-router-kv-events): other routers' decisions are recorded too. */
    private readonly recordDecisions: boolean,
  ) {}

  /** Serves `source` as `model`'s indexer; resolves to the function that stops serving it. */
  async add(namespace: string, component: string, model: string, source: KvEventSink): Promise<() => void> {
    const key = `${namespace}.${component}`;
    let started = this.byComponent.get(key);
    if (!started) this.byComponent.set(key, (started = this.start(namespace, component)));
    const indexer = await started;
    indexer.add(model, source);
    return () => indexer.remove(model);
  }

  private async start(namespace: string, component: string): Promise<ServedIndexer> {
    const indexer = new ServedIndexer();
    await this.serve(namespace, component, INDEXER_QUERY_ENDPOINT, indexer.handler((r) => indexer.query(r)));
    if (this.recordDecisions) await this.serve(namespace, component, INDEXER_RECORD_ENDPOINT, indexer.handler((r) => indexer.record(r)));
    return indexer;
  }
}
