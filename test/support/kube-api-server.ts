// A stand-in Kubernetes API server for tests: real REST paths, list with resourceVersion, watch
// streams of ADDED/MODIFIED/DELETED JSON lines (resumed from a resourceVersion, 410 Gone once the
// history is compacted, BOOKMARK events when the client allows them, timeoutSeconds honoured),
// server-side apply (PATCH application/apply-patch+yaml) and DELETE. Tests drive it as an
// operator and the kubelet would: put EndpointSlices, delete pods (and with them the CRs they own).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

type Obj = Record<string, any>;

interface Event {
  rv: number;
  collection: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Obj;
}

interface Watcher {
  collection: string;
  selector: Map<string, string>;
  bookmarks: boolean;
  res: ServerResponse;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
}

export const SLICES = (ns: string): string => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`;
export const DWMS = (ns: string): string => `/apis/nvidia.com/v1alpha1/namespaces/${ns}/dynamoworkermetadatas`;

function parseSelector(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (text ?? '').split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    out.set(k!, v ?? '');
  }
  return out;
}

function matches(obj: Obj, selector: Map<string, string>): boolean {
  const labels = (obj.metadata?.labels ?? {}) as Record<string, string>;
  for (const [k, v] of selector) if (labels[k] !== v) return false;
  return true;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

export class KubeApiServer {
  private readonly server: Server;
  private readonly store = new Map<string, Map<string, Obj>>();
  private history: Event[] = [];
  /** Events before this resourceVersion are compacted away: watching from older gets 410 Gone. */
  private oldestRv = 0;
  private rv = 100;
  private readonly watchers = new Set<Watcher>();
  readonly requests: RecordedRequest[] = [];
  port = 0;

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** Listens on `port` (0: a free one; the last one: back after `stop()`, as an API server restarting). */
  async start(port = 0): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Writes a kubeconfig pointing at this server into `dir`; returns its path. */
  writeKubeconfig(dir: string): string {
    const file = join(dir, 'kubeconfig.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: stand-in\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
        'users:',
        '- name: tester\n  user:\n    token: test-token',
        'contexts:',
        '- name: stand-in\n  context:\n    cluster: stand-in\n    user: tester',
        'current-context: stand-in',
        '',
      ].join('\n'),
    );
    return file;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.destroy();
    this.watchers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- the test's hands -------------------------------------------------------------------

  objects(collection: string): Obj[] {
    return [...(this.store.get(collection)?.values() ?? [])].map(clone);
  }

  get(collection: string, name: string): Obj | undefined {
    const obj = this.store.get(collection)?.get(name);
    return obj ? clone(obj) : undefined;
  }

  /** Creates or replaces an object (as a controller would), emitting the watch event. */
  put(collection: string, obj: Obj): Obj {
    const items = this.collection(collection);
    const name = obj.metadata.name as string;
    const old = items.get(name);
    const stored = clone(obj);
    stored.metadata.uid = old?.metadata.uid ?? obj.metadata.uid ?? randomUUID();
    stored.metadata.resourceVersion = String(++this.rv);
    items.set(name, stored);
    this.emit({ rv: this.rv, collection, type: old ? 'MODIFIED' : 'ADDED', object: stored });
    return clone(stored);
  }

  remove(collection: string, name: string): boolean {
    const items = this.collection(collection);
    const old = items.get(name);
    if (!old) return false;
    items.delete(name);
    const gone = { ...clone(old), metadata: { ...old.metadata, resourceVersion: String(++this.rv) } };
    this.emit({ rv: this.rv, collection, type: 'DELETED', object: gone });
    return true;
  }

  /** An EndpointSlice labelled for Dynamo discovery listing `pods` (name → uid, ready). */
  putSlice(ns: string, name: string, pods: Array<{ name: string; uid?: string; ready: boolean }>, labels?: Record<string, string>): void {
    this.put(SLICES(ns), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name,
        namespace: ns,
        labels: labels ?? { 'nvidia.com/dynamo-discovery-backend': 'kubernetes', 'nvidia.com/dynamo-discovery-enabled': 'true' },
      },
      addressType: 'IPv4',
      endpoints: pods.map((p, i) => ({
        addresses: [`10.0.0.${i + 1}`],
        conditions: { ready: p.ready },
        targetRef: { kind: 'Pod', name: p.name, namespace: ns, ...(p.uid ? { uid: p.uid } : {}) },
      })),
      ports: [{ name: 'system', port: 9090, protocol: 'TCP' }],
    });
  }

  /** What the garbage collector does when a pod goes: every CR it owns is deleted. */
  deleteOwnedBy(ns: string, podName: string): void {
    for (const cr of this.objects(DWMS(ns))) {
      if ((cr.metadata.ownerReferences ?? []).some((o: Obj) => o.kind === 'Pod' && o.name === podName)) this.remove(DWMS(ns), cr.metadata.name);
    }
  }

  /** Ends every open watch stream (clients resume from their last resourceVersion). */
  closeWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /** Forgets the event history: a watch resumed from before now gets 410 Gone. */
  compact(): void {
    this.history = [];
    this.oldestRv = this.rv;
  }

  /** A BOOKMARK on every watch that allowed bookmarks. */
  bookmark(): void {
    for (const w of this.watchers) {
      if (w.bookmarks) w.res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Bookmark', metadata: { resourceVersion: String(this.rv) } } })}\n`);
    }
  }

  openWatches(collection: string): number {
    return [...this.watchers].filter((w) => w.collection === collection).length;
  }

  // ---- the server ---------------------------------------------------------------------------

  private collection(path: string): Map<string, Obj> {
    let items = this.store.get(path);
    if (!items) this.store.set(path, (items = new Map()));
    return items;
  }

  private emit(event: Event): void {
    this.history.push(event);
    for (const w of this.watchers) {
      if (w.collection === event.collection && matches(event.object, w.selector)) w.res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const query = Object.fromEntries(url.searchParams);
    this.requests.push({ method: req.method ?? '', path: url.pathname, query, contentType: req.headers['content-type'] });
    let body = '';
    for await (const chunk of req) body += chunk;
    const parts = url.pathname.split('/');
    const isCollection = url.pathname.endsWith('endpointslices') || url.pathname.endsWith('dynamoworkermetadatas');
    const collection = isCollection ? url.pathname : parts.slice(0, -1).join('/');
    const name = isCollection ? '' : parts.at(-1)!;
    if (req.headers.authorization !== 'Bearer test-token') return this.status(res, 401, 'Unauthorized', 'Unauthorized');
    if (req.method === 'GET' && isCollection && query.watch === 'true') return this.watch(res, collection, query);
    if (req.method === 'GET' && isCollection) {
      const selector = parseSelector(query.labelSelector);
      const items = this.objects(collection).filter((o) => matches(o, selector));
      return this.json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items });
    }
    if (req.method === 'PATCH' && !isCollection) return this.apply(res, collection, name, body, req.headers['content-type'], query);
    if (req.method === 'DELETE' && !isCollection) {
      if (!this.remove(collection, name)) return this.status(res, 404, 'NotFound', `"${name}" not found`);
      return this.json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
    }
    return this.status(res, 405, 'MethodNotAllowed', `${req.method} ${url.pathname} is not served by the stand-in`);
  }

  private apply(res: ServerResponse, collection: string, name: string, body: string, contentType: string | undefined, query: Record<string, string>): void {
    if (contentType !== 'application/apply-patch+yaml') return this.status(res, 415, 'UnsupportedMediaType', `unsupported patch type ${contentType}`);
    if (!query.fieldManager) return this.status(res, 422, 'Invalid', 'fieldManager is required for apply requests');
    const patch = JSON.parse(body) as Obj;
    if (patch.metadata?.name !== name) return this.status(res, 400, 'BadRequest', 'the name of the object does not match the name on the URL');
    const old = this.store.get(collection)?.get(name);
    const merged = { ...(old ? clone(old) : {}), ...patch, metadata: { ...(old?.metadata ?? {}), ...patch.metadata } };
    return this.json(res, old ? 200 : 201, this.put(collection, merged));
  }

  private watch(res: ServerResponse, collection: string, query: Record<string, string>): void {
    const from = Number(query.resourceVersion || '0');
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // The API server flushes a watch's headers at once (events follow as they happen).
    res.flushHeaders();
    if (from && from < this.oldestRv) {
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${from} (${this.oldestRv})` } })}\n`);
      return;
    }
    const w: Watcher = { collection, selector: parseSelector(query.labelSelector), bookmarks: query.allowWatchBookmarks === 'true', res };
    for (const ev of this.history) {
      if (ev.rv > from && ev.collection === collection && matches(ev.object, w.selector)) res.write(`${JSON.stringify({ type: ev.type, object: ev.object })}\n`);
    }
    this.watchers.add(w);
    const timeout = Number(query.timeoutSeconds || '0');
    const timer = timeout ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    timer?.unref();
    res.on('close', () => {
      clearTimeout(timer);
      this.watchers.delete(w);
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private status(res: ServerResponse, code: number, reason: string, message: string): void {
    this.json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  }
}
