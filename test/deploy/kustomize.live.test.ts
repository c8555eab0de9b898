import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadAllYaml } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { REPO_ROOT } from '../support/processes.js';

// Renders deploy/ with the real `kubectl kustomize` and checks the objects a cluster would receive.

interface Probe { httpGet?: { path: string; port: string | number }; grpc?: { port: number } }
interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // Each kind has its own spec; the checks below read the fields they need.
  spec?: any;
  rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
  subjects?: Array<{ kind: string; name: string }>;
  roleRef?: { kind: string; name: string };
}

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const IMAGE = `dynamo-ts:${(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}`;
const KUBECTL = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const skip = KUBECTL.error ? 'no kubectl binary on PATH (Debian: apt-get install kubernetes-client; .ci/run installs it)' : false;

function render(dir: string): K8sObject[] {
  const out = spawnSync('kubectl', ['kustomize', path.join(DEPLOY, dir)], { encoding: 'utf8' });
  assert.equal(out.status, 0, `kubectl kustomize deploy/${dir} failed: ${out.stderr}`);
  const objects = loadAll(out.stdout) as K8sObject[];
  checkSchema(objects, loadAllYaml(out.stdout) as object[]);
  return objects;
}

/** Field paths of a parsed document, list indexes included. */
function fieldPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [prefix];
  return Object.entries(value).flatMap(([k, v]) => fieldPaths(v, `${prefix}.${k}`));
}

/**
 * No cluster validates these files, so a misspelt field would be silently ignored by kubectl apply's
 * lenient paths: the client's model classes keep only the fields of the Kubernetes schema, so any
 * field the typed copy of a built-in kind lost is unknown to Kubernetes.
 */
function checkSchema(plain: K8sObject[], typed: object[]): void {
  plain.forEach((raw, i) => {
    const model = typed[i]!;
    if (model.constructor === Object) return; // a custom resource: no schema in the client
    const known = new Set(fieldPaths(JSON.parse(JSON.stringify(model))));
    const unknown = fieldPaths(raw).filter((p) => !known.has(p));
    assert.deepEqual(unknown, [], `${raw.kind}/${raw.metadata.name} has only fields of the Kubernetes schema`);
  });
}

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} is rendered`);
  return found;
}

const kinds = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
const mainContainer = (deployment: K8sObject): Container => deployment.spec.template.spec.containers[0];
const envOf = (c: Container) => new Map((c.env ?? []).map((e) => [e.name, e.value ?? `fieldRef:${e.valueFrom?.fieldRef?.fieldPath}`]));

const BASE_OBJECTS = [
  'Deployment/dynamo-ts-frontend', 'Deployment/dynamo-ts-mocker',
  'Role/dynamo-ts-discovery', 'RoleBinding/dynamo-ts-discovery',
  'Service/dynamo-ts-frontend', 'Service/dynamo-ts-mocker', 'ServiceAccount/dynamo-ts-discovery',
];

/** What every overlay must keep from the base: image, ports, probes, drain, identity, RBAC, wiring. */
function checkBase(objects: K8sObject[]): void {
  const frontend = mainContainer(find(objects, 'Deployment', 'dynamo-ts-frontend'));
  assert.equal(frontend.image, IMAGE);
  assert.deepEqual(frontend.args, ['frontend', '--http-port', '8000', '--grpc-port', '8001']);
  assert.deepEqual(frontend.ports, [{ name: 'http', containerPort: 8000 }, { name: 'grpc', containerPort: 8001 }]);
  assert.deepEqual(frontend.livenessProbe?.httpGet, { path: '/live', port: 'http' });
  assert.deepEqual(frontend.readinessProbe?.httpGet, { path: '/health', port: 'http' });
  assert.deepEqual(frontend.lifecycle?.preStop?.exec?.command, ['sleep', '5'], 'frontend preStop sleeps before the drain');
  const drainSecs = Number(envOf(frontend).get('DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS'));
  const graceSecs = find(objects, 'Deployment', 'dynamo-ts-frontend').spec.template.spec.terminationGracePeriodSeconds;
  const preStopSecs = Number(frontend.lifecycle?.preStop?.exec?.command[1]);
  assert.ok(preStopSecs + drainSecs < graceSecs, 'preStop plus drain end before the kubelet kills the pod');

  const mocker = mainContainer(find(objects, 'Deployment', 'dynamo-ts-mocker'));
  assert.equal(mocker.image, IMAGE);
  assert.deepEqual(mocker.args, ['mocker']);

  for (const name of ['dynamo-ts-frontend', 'dynamo-ts-mocker']) {
    const pod = find(objects, 'Deployment', name).spec.template.spec;
    assert.equal(pod.serviceAccountName, 'dynamo-ts-discovery', `${name} runs as the discovery service account`);
    assert.equal(pod.securityContext.runAsNonRoot, true, `${name} runs as non-root`);
    const env = envOf(pod.containers[0]);
    assert.equal(env.get('POD_NAME'), 'fieldRef:metadata.name');
    assert.equal(env.get('POD_UID'), 'fieldRef:metadata.uid');
    assert.equal(env.get('POD_NAMESPACE'), 'fieldRef:metadata.namespace');
    assert.equal(env.get('DYN_TCP_RPC_HOST'), 'fieldRef:status.podIP');
  }

  const apiKeys = find(objects, 'Deployment', 'dynamo-ts-frontend').spec.template.spec.volumes.find((v: { name: string }) => v.name === 'api-keys');
  assert.equal(apiKeys.secret.optional, true, 'the API-keys secret may be absent');

  const role = find(objects, 'Role', 'dynamo-ts-discovery');
  assert.deepEqual(role.rules, [
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    { apiGroups: ['nvidia.com'], resources: ['dynamoworkermetadatas'], verbs: ['list', 'watch', 'create', 'patch', 'delete'] },
  ]);
  const binding = find(objects, 'RoleBinding', 'dynamo-ts-discovery');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'dynamo-ts-discovery' });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'dynamo-ts-discovery' }]);

  const workers = find(objects, 'Service', 'dynamo-ts-mocker');
  assert.equal(workers.metadata.labels?.['nvidia.com/dynamo-discovery-backend'], 'kubernetes');
  assert.equal(workers.metadata.labels?.['nvidia.com/dynamo-discovery-enabled'], 'true');
  checkServicesSelectPods(objects);
}

/** Every Service selects some Deployment's pods, and its named target ports exist on them. */
function checkServicesSelectPods(objects: K8sObject[]): void {
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const selector = Object.entries(service.spec.selector as Record<string, string>);
    const target = deployments.find((d) => selector.every(([k, v]) => d.spec.template.metadata.labels[k] === v));
    assert.ok(target, `Service/${service.metadata.name} selects a Deployment's pods`);
    const portNames = new Set(mainContainer(target).ports?.map((p) => p.name));
    for (const port of service.spec.ports ?? []) {
      if (typeof port.targetPort === 'string') assert.ok(portNames.has(port.targetPort), `Service/${service.metadata.name} port ${port.targetPort} exists`);
    }
  }
}

function workerEnv(objects: K8sObject[]): Array<Map<string, string>> {
  return ['dynamo-ts-frontend', 'dynamo-ts-mocker'].map((name) => envOf(mainContainer(find(objects, 'Deployment', name))));
}

test('deploy/overlays/kubernetes-discovery: base objects, Kubernetes discovery without etcd or NATS', { skip }, () => {
  const objects = render('overlays/kubernetes-discovery');
  assert.deepEqual(kinds(objects), BASE_OBJECTS);
  checkBase(objects);
  for (const env of workerEnv(objects)) {
    assert.equal(env.get('DYN_DISCOVERY_BACKEND'), 'kubernetes');
    assert.equal(env.get('DYN_EVENT_PLANE'), 'zmq', 'KV events must not default to NATS, which this overlay lacks');
  }
});

test('deploy/overlays/etcd-nats: adds single-replica etcd and NATS that the workers point at', { skip }, () => {
  const objects = render('overlays/etcd-nats');
  assert.deepEqual(kinds(objects), [...BASE_OBJECTS, 'Deployment/dynamo-ts-etcd', 'Deployment/dynamo-ts-nats', 'Service/dynamo-ts-etcd', 'Service/dynamo-ts-nats'].sort());
  checkBase(objects);
  for (const name of ['dynamo-ts-etcd', 'dynamo-ts-nats']) {
    const deployment = find(objects, 'Deployment', name);
    assert.equal(deployment.spec.replicas, 1);
    assert.ok(mainContainer(deployment).readinessProbe, `${name} has a readiness probe`);
  }
  assert.match(mainContainer(find(objects, 'Deployment', 'dynamo-ts-etcd')).image, /^quay\.io\/coreos\/etcd:v3\./);
  assert.match(mainContainer(find(objects, 'Deployment', 'dynamo-ts-nats')).image, /^nats:2\./);
  assert.ok(mainContainer(find(objects, 'Deployment', 'dynamo-ts-nats')).args?.includes('--jetstream'));
  for (const env of workerEnv(objects)) {
    assert.equal(env.get('DYN_DISCOVERY_BACKEND'), 'etcd');
    for (const [variable, service] of [['ETCD_ENDPOINTS', 'dynamo-ts-etcd'], ['NATS_SERVER', 'dynamo-ts-nats']] as const) {
      const url = new URL(env.get(variable) ?? '');
      assert.equal(url.hostname, service, `${variable} names the ${service} Service`);
      const ports = find(objects, 'Service', service).spec.ports.map((p: { port: number }) => p.port);
      assert.ok(ports.includes(Number(url.port)), `${variable} uses a port of the ${service} Service`);
    }
  }
});

test('deploy/overlays/monitoring: kubernetes-discovery plus a ServiceMonitor on the frontend /metrics', { skip }, () => {
  const objects = render('overlays/monitoring');
  assert.deepEqual(kinds(objects), [...BASE_OBJECTS, 'ServiceMonitor/dynamo-ts-frontend'].sort());
  checkBase(objects);
  const monitor = find(objects, 'ServiceMonitor', 'dynamo-ts-frontend');
  assert.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
  const service = find(objects, 'Service', 'dynamo-ts-frontend');
  for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>)) {
    assert.equal(service.metadata.labels?.[k], v, `the ServiceMonitor selects Service/dynamo-ts-frontend by ${k}`);
  }
  assert.deepEqual(monitor.spec.endpoints.map((e: { port: string; path: string }) => [e.port, e.path]), [['http', '/metrics']]);
  assert.ok(service.spec.ports.some((p: { name: string }) => p.name === 'http'));
});

test('deploy/examples: DynamoGraphDeployment and KServe InferenceService run this image', { skip }, () => {
  const objects = render('examples');
  assert.deepEqual(kinds(objects), ['DynamoGraphDeployment/dynamo-ts-example', 'InferenceService/dynamo-ts']);

  const graph = find(objects, 'DynamoGraphDeployment', 'dynamo-ts-example');
  assert.equal(graph.apiVersion, 'nvidia.com/v1alpha1');
  const services = graph.spec.graphs.flatMap((g: { services: Container[] }) => g.services) as Container[];
  assert.deepEqual(services.map((s) => s.name), ['Frontend', 'Mocker']);
  for (const s of services) {
    assert.equal(s.image, IMAGE);
    assert.deepEqual(s.command?.slice(0, 2), ['node', '/app/bin/dynamo-ts.js'], 'the command runs the image entrypoint');
  }

  const isvc = find(objects, 'InferenceService', 'dynamo-ts');
  assert.equal(isvc.apiVersion, 'serving.kserve.io/v1beta1');
  const [container] = isvc.spec.predictor.containers as Container[];
  assert.equal(container.image, IMAGE);
  assert.deepEqual(container.ports, [{ name: 'h2c', containerPort: 8001, protocol: 'TCP' }]);
  assert.ok(container.args?.includes('--grpc-port') && container.args[container.args.indexOf('--grpc-port') + 1] === '8001');
  assert.deepEqual(container.readinessProbe, { grpc: { port: 8001 } });
  assert.deepEqual(container.livenessProbe?.httpGet, { path: '/live', port: 8000 });
});

test('deploy/ manifests: the image accepts every command line and environment they give it', { skip }, async () => {
  const { parseCommandLine } = await import('../../src/config/index.js');
  const examples = render('examples');
  const runs: Array<{ argv: string[]; env: Record<string, string> }> = [
    ...find(examples, 'DynamoGraphDeployment', 'dynamo-ts-example').spec.graphs[0].services.map((s: Container) => ({ argv: s.command?.slice(2) ?? [], env: {} })),
    ...(find(examples, 'InferenceService', 'dynamo-ts').spec.predictor.containers as Container[]).map((c) => ({ argv: c.args ?? [], env: {} })),
  ];
  for (const overlay of ['overlays/kubernetes-discovery', 'overlays/etcd-nats']) {
    for (const name of ['dynamo-ts-frontend', 'dynamo-ts-mocker']) {
      const container = mainContainer(find(render(overlay), 'Deployment', name));
      // Downward-API values exist only in a pod; literal ones are parsed as the process would see them.
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? 'from-the-pod']));
      runs.push({ argv: container.args ?? [], env });
    }
  }
  for (const { argv, env } of runs) {
    const parsed = parseCommandLine(argv, env);
    assert.equal(parsed.kind, 'run', `dynamo-ts ${argv.join(' ')} parses`);
  }
});
