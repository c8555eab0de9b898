import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ServiceUnreachableError } from '../../../src/protocols/index.js';
import { KeyExistsError, kubeInstanceId, type StoreEvent } from '../../../src/runtime/index.js';
import { KubeDiscoveryBackend } from '../../../src/runtime/discovery/kube-backend.js';
import { PlaneStatus } from '../../../src/runtime/plane-status.js';
import { eventually } from '../../support/in-process.js';
import { DWMS, KubeApiServer, SLICES, type RecordedRequest } from '../../support/kube-api-server.js';
import { REPO_ROOT } from '../../support/processes.js';

const NS = 'team-a';
let api: KubeApiServer;
let dir: string;
let kubeconfig: string;

before(async () => {
  api = new KubeApiServer();
  await api.start();
  dir = mkdtempSync(path.join(tmpdir(), 'kube-backend-'));
  kubeconfig = api.writeKubeconfig(dir);
});

after(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

function backend(podName: string, podUid: string, ns = NS): KubeDiscoveryBackend {
  return new KubeDiscoveryBackend({
    env: { POD_NAME: podName, POD_UID: podUid, POD_NAMESPACE: ns },
    kubeconfig,
    podinfoDir: path.join(dir, 'no-podinfo'),
  });
}

const ENDPOINT = (id: bigint): [string, string] => [
  `v1/instances/dynamo/backend/generate/${id.toString(16)}`,
  JSON.stringify({ type: 'Endpoint', component: 'backend', endpoint: 'generate', namespace: 'dynamo', instance_id: Number(id), transport: { tcp: `10.0.0.1:9999/${id.toString(16)}/generate` }, request_plane_codec: 'json' }),
];

test('the writer server-side-applies one CR per pod, owned by the pod, and deletes it on revoke', async () => {
  const worker = backend('worker-0', 'uid-w0');
  const lease = await worker.grantLease();
  assert.equal(lease.id, 1186445869714687n, 'instance id = upstream hash of the pod name');
  const [key, value] = ENDPOINT(lease.id);
  await lease.create(key, value);
  await assert.rejects(lease.create(key, value), KeyExistsError);
  const cr = api.get(DWMS(NS), 'worker-0')!;
  assert.equal(cr.apiVersion, 'nvidia.com/v1alpha1');
  assert.equal(cr.kind, 'DynamoWorkerMetadata');
  assert.deepEqual(cr.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'Pod', name: 'worker-0', uid: 'uid-w0', controller: true, blockOwnerDeletion: false },
  ]);
  assert.deepEqual(cr.spec.data, { endpoints: { 'dynamo/backend/generate/43710f49c0cff': JSON.parse(value) }, model_cards: {}, event_channels: {} });
  const apply = api.requests.filter((r) => r.method === 'PATCH').at(-1)!;
  assert.equal(apply.contentType, 'application/apply-patch+yaml');
  assert.equal(apply.query.fieldManager, 'dynamo-worker');
  assert.equal(apply.query.force, 'true');

  await lease.delete(key);
  assert.deepEqual(api.get(DWMS(NS), 'worker-0')!.spec.data.endpoints, {}, 'unregister applies the CR without the record');
  const sibling = await worker.grantLease();
  assert.equal(sibling.id, kubeInstanceId('worker-0-1'), 'a second instance in the pod gets a CR of its own');
  await lease.revoke();
  assert.equal(api.get(DWMS(NS), 'worker-0'), undefined, 'revoke deletes the CR');
  await lease.revoke();
  await worker.close();
});

test('the reader sees a worker only while its pod is ready and its CR exists; watches resume, 410 relists', async () => {
  const worker = backend('worker-1', 'uid-w1');
  const lease = await worker.grantLease();
  const [key, value] = ENDPOINT(lease.id);
  await lease.create(key, value);

  const frontend = backend('frontend-0', 'uid-f0');
  const seen: StoreEvent[] = [];
  const stop = await frontend.watch('v1/instances/', (e) => seen.push(e));
  assert.deepEqual(seen, [], 'a CR without a ready pod is not routable');
  const listed = api.requests.filter((r) => r.method === 'GET' && r.path === SLICES(NS) && r.query.watch !== 'true');
  assert.equal(listed.at(-1)!.query.labelSelector, 'nvidia.com/dynamo-discovery-backend=kubernetes,nvidia.com/dynamo-discovery-enabled=true');

  api.putSlice(NS, 'backend-abc', [{ name: 'worker-1', uid: 'uid-w1', ready: true }]);
  await eventually(() => seen.length === 1, 10_000, 'ready pod + CR → put');
  assert.deepEqual(seen[0], { type: 'put', key, value });
  const watches = api.requests.filter((r) => r.query.watch === 'true');
  assert.ok(watches.every((r) => r.query.allowWatchBookmarks === 'true' && r.query.resourceVersion), 'watches start from the listed version, bookmarks allowed');

  // A bookmark moves the resume point; a closed watch resumes from the last version seen.
  api.bookmark();
  const before = api.requests.length;
  api.closeWatches();
  await eventually(() => api.openWatches(DWMS(NS)) === 1 && api.openWatches(SLICES(NS)) === 1, 10_000, 'watches resumed');
  const resumed = api.requests.slice(before).filter((r) => r.query.watch === 'true');
  assert.ok(resumed.length >= 2 && resumed.every((r) => Number(r.query.resourceVersion) > 100), 'resumed from a version, not from scratch');
  assert.equal(api.requests.slice(before).filter((r) => r.query.watch !== 'true').length, 0, 'no relist for a plain watch end');

  // A change while the watches are down, then the history compacted: the resume gets 410 and the
  // reader relists (all in one tick, so the reader cannot reconnect in between).
  const lists = (): RecordedRequest[] => api.requests.filter((r) => r.method === 'GET' && r.query.watch !== 'true');
  const listsBefore = lists().length;
  api.closeWatches();
  api.putSlice(NS, 'backend-abc', [{ name: 'worker-1', uid: 'uid-w1', ready: false }]);
  api.compact();
  await eventually(() => seen.length === 2, 10_000, 'not ready → delete');
  assert.deepEqual(seen[1], { type: 'delete', key });

  // Ready again; then the pod goes: the slice loses it and the GC deletes the CR.
  api.putSlice(NS, 'backend-abc', [{ name: 'worker-1', uid: 'uid-w1', ready: true }]);
  await eventually(() => seen.length === 3, 10_000, 'ready again → put');
  // Each kind relists on its own 410, and the events above needed only the slices' relist: the
  // CRs' may still be on its way.
  await eventually(() => lists().length >= listsBefore + 2, 10_000, 'both kinds relisted');
  assert.deepEqual(lists().slice(listsBefore).map((r) => r.path).sort(), [DWMS(NS), SLICES(NS)].sort(), 'the 410 made the reader list both kinds again, once each');
  api.deleteOwnedBy(NS, 'worker-1');
  await eventually(() => seen.length === 4, 10_000, 'CR deleted → delete');
  assert.deepEqual(seen[3], { type: 'delete', key });
  stop();
  await frontend.close();
  await worker.close();
});

test('a stale CR of an earlier pod incarnation does not join; slices of other namespaces are not watched', async () => {
  // A namespace of its own: workers an earlier test leaves routable when it fails midway stay out.
  const ns = 'team-c';
  const worker = backend('worker-2', 'uid-old', ns);
  const lease = await worker.grantLease();
  const [key, value] = ENDPOINT(lease.id);
  await lease.create(key, value);
  const frontend = backend('frontend-1', 'uid-f1', ns);
  const seen: StoreEvent[] = [];
  const stop = await frontend.watch('v1/', (e) => seen.push(e));
  api.putSlice(ns, 'backend-2', [{ name: 'worker-2', uid: 'uid-new', ready: true }]);
  api.putSlice('elsewhere', 'backend-2', [{ name: 'worker-2', uid: 'uid-old', ready: true }]);
  api.putSlice(ns, 'unlabelled', [{ name: 'worker-2', uid: 'uid-old', ready: true }], { app: 'x' });
  const marker = await (await backend('marker', 'uid-m', ns).grantLease());
  await marker.create(...ENDPOINT(marker.id));
  api.putSlice(ns, 'marker', [{ name: 'marker', uid: 'uid-m', ready: true }]);
  await eventually(() => seen.length === 1, 10_000, 'the marker worker arrives');
  assert.equal(seen[0]!.key, ENDPOINT(marker.id)[0], 'only the marker: worker-2 is stale, the other slices do not count');
  stop();
  await frontend.close();
});

test('an unreachable API server fails the first watch with one line naming the server', async () => {
  const dead = new KubeApiServer();
  await dead.start();
  const file = dead.writeKubeconfig(mkdtempSync(path.join(tmpdir(), 'kube-dead-')));
  const url = dead.url;
  await dead.stop();
  const b = new KubeDiscoveryBackend({ env: { POD_NAME: 'f', POD_UID: 'u', POD_NAMESPACE: NS }, kubeconfig: file, podinfoDir: '/nonexistent' });
  await assert.rejects(b.watch('v1/', () => undefined), (err: Error) => {
    assert.match(err.message, new RegExp(`^cannot reach the Kubernetes API at ${url.replace(/\./g, '\\.')} \\(namespace ${NS}\\) \\(.*ECONNREFUSED.*\\)$`));
    assert.ok(!err.message.includes('\n'), err.message);
    assert.match((err as ServiceUnreachableError).fix, /KUBECONFIG/);
    return true;
  });
  await b.close();
});

test('an API server outage is a discovery outage: logged once when lost and once when back, in the plane status meanwhile', async () => {
  const flaky = new KubeApiServer();
  await flaky.start();
  const lines: { level: string; msg: string }[] = [];
  const planes = new PlaneStatus({ warn: (_o, msg) => lines.push({ level: 'warn', msg }), info: (_o, msg) => lines.push({ level: 'info', msg }) });
  const b = new KubeDiscoveryBackend({
    env: { POD_NAME: 'f', POD_UID: 'u', POD_NAMESPACE: NS },
    kubeconfig: flaky.writeKubeconfig(mkdtempSync(path.join(dir, 'flaky-'))),
    podinfoDir: path.join(dir, 'no-podinfo'),
    connection: (what) => planes.connection('discovery', what),
  });
  const stop = await b.watch('v1/instances/', () => undefined);
  try {
    assert.equal(planes.isUp('discovery'), true);
    const port = flaky.port;
    await flaky.stop();
    await eventually(() => !planes.isUp('discovery'), 20_000, 'the outage to be seen');
    assert.match(planes.outages()[0]!.what, /^the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \((DynamoWorkerMetadata|EndpointSlice) watch, namespace team-a\)$/);
    await flaky.start(port);
    await eventually(() => planes.isUp('discovery'), 20_000, 'the return to be seen');
    const lost = lines.filter((l) => l.level === 'warn');
    const back = lines.filter((l) => l.level === 'info');
    assert.ok(lost.length >= 1 && lost.length <= 2, `one loss line per watch, got ${JSON.stringify(lost)}`);
    assert.equal(back.length, lost.length, 'each loss has its return');
    assert.match(lost[0]!.msg, /Kubernetes API .* lost \(.*\): workers that start or stop go unseen/);
  } finally {
    stop();
    await b.close();
    await flaky.stop();
  }
});

test('deploy/base/rbac-discovery.yaml grants exactly the verbs these tests used', async () => {
  const { loadAllYaml } = await import('@kubernetes/client-node');
  const docs = loadAllYaml(readFileSync(path.join(REPO_ROOT, 'deploy/base/rbac-discovery.yaml'), 'utf8')) as Array<{ kind: string; rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> }>;
  const role = docs.find((d) => d.kind === 'Role')!;
  const granted = new Set(role.rules!.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${r.apiGroups[0]}/${res} ${v}`))));
  const used = new Set<string>();
  for (const r of api.requests) {
    const group = r.path.split('/')[2]!;
    const resource = r.path.includes('endpointslices') ? 'endpointslices' : 'dynamoworkermetadatas';
    const verbs = r.method === 'GET' ? [r.query.watch === 'true' ? 'watch' : 'list'] : r.method === 'PATCH' ? ['create', 'patch'] : ['delete'];
    for (const v of verbs) used.add(`${group}/${resource} ${v}`);
  }
  assert.deepEqual([...used].sort(), [...granted].sort());
});
