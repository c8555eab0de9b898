// A list-then-watch mirror of one kind of Kubernetes object in one namespace, as client-go's
// reflector: list (remembering the resourceVersion), watch from it with bookmarks, resume from the
// last version seen when a watch ends, re-list on 410 Gone, back off 50 ms → 5 s on errors. A
// re-list replaces the whole view at once, so consumers never see a half-listed state.
import type { Watch } from '@kubernetes/client-node';
import { Backoff } from './backoff.js';

export interface KubeObject {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; ownerReferences?: Array<{ kind?: string; name?: string; uid?: string }> };
}

export interface KubeList<T> {
  items: T[];
  resourceVersion: string;
}

export interface ReflectorOptions<T> {
  /** The collection's REST path, e.g. `/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices`. */
  path: string;
  labelSelector?: string;
  list: () => Promise<KubeList<T>>;
  watch: Watch;
  /** After every change of the view. */
  onChange: () => void;
  /** Once per outage, with what failed; `onRecovered` once it works again. */
  onError: (err: Error) => void;
  onRecovered: () => void;
}

/** Upper bound of one watch request, so a connection silently dropped by a proxy is noticed. */
const WATCH_TIMEOUT_SECS = 290;

function statusOf(err: unknown): number | undefined {
  const e = err as { statusCode?: number; code?: number } | null;
  return e?.statusCode ?? (typeof e?.code === 'number' ? e.code : undefined);
}

export class Reflector<T extends KubeObject> {
  private objects = new Map<string, T>();
  private resourceVersion = '';
  private abort: AbortController | null = null;
  private retry: NodeJS.Timeout | null = null;
  private readonly backoff = new Backoff();
  private failing = false;
  private stopped = false;

  constructor(private readonly opts: ReflectorOptions<T>) {}

  get items(): ReadonlyMap<string, T> {
    return this.objects;
  }

  /** The first listing; rejects when the API server cannot be reached. */
  async start(): Promise<void> {
    await this.relist();
    this.startWatch();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.abort?.abort();
  }

  private async relist(): Promise<void> {
    const list = await this.opts.list();
    this.objects = new Map(list.items.map((o) => [o.metadata?.name ?? '', o]));
    this.resourceVersion = list.resourceVersion;
    this.opts.onChange();
  }

  private startWatch(): void {
    if (this.stopped) return;
    let gone = false;
    let ended = false;
    let events = 0;
    const params: Record<string, string | number | boolean> = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: WATCH_TIMEOUT_SECS,
    };
    if (this.opts.labelSelector) params.labelSelector = this.opts.labelSelector;
    const onEvent = (type: string, obj: T & { code?: number }): void => {
      if (type === 'ERROR') {
        if (obj.code === 410) gone = true;
        return;
      }
      const name = obj.metadata?.name ?? '';
      if (type === 'ADDED' || type === 'MODIFIED') this.objects.set(name, obj);
      else if (type === 'DELETED') this.objects.delete(name);
      if (obj.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
      if (type !== 'BOOKMARK') this.opts.onChange();
      events++;
      this.backoff.reset();
    };
    const onDone = (err: unknown): void => {
      if (ended) return;
      ended = true;
      this.abort = null;
      if (this.stopped) return;
      if (gone || statusOf(err) === 410) this.schedule(0, true);
      else if (err) this.fail(err as Error, false);
      // A watch the server closes at once, again and again, must not spin.
      else this.schedule(events > 0 ? 0 : this.backoff.next(), false);
    };
    this.opts.watch.watch(this.opts.path, params, onEvent, onDone).then(
      (controller: AbortController) => {
        if (ended) return;
        this.abort = controller;
        if (this.stopped) controller.abort();
        else this.recovered();
      },
      (err: Error) => onDone(err),
    );
  }

  private fail(err: Error, relist: boolean): void {
    if (!this.failing) {
      this.failing = true;
      this.opts.onError(err);
    }
    this.schedule(this.backoff.next(), relist);
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.opts.onRecovered();
  }

  private schedule(delayMs: number, relist: boolean): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!relist) return this.startWatch();
      this.relist().then(
        () => {
          this.recovered();
          this.startWatch();
        },
        (err: Error) => this.fail(err, true),
      );
    }, delayMs);
    this.retry.unref();
  }
}
