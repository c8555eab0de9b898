import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { kubeInstanceId, podIdentity } from '../../../src/runtime/index.js';

test('instance ids are upstream hash_pod_name: SipHash-1-3 of the name + 0xFF, masked to 53 bits', () => {
  assert.equal(kubeInstanceId('worker-0'), 1186445869714687n);
  assert.equal(kubeInstanceId('worker-0').toString(16), '43710f49c0cff');
  assert.equal(kubeInstanceId('worker-0-engine-0'), 8051026481054291n);
  assert.equal(kubeInstanceId('a'), 7688582637611507n);
  assert.notEqual(kubeInstanceId('worker-0-engine-0'), kubeInstanceId('worker-0-engine-1'), 'engines of one pod get distinct ids');
  for (const name of ['', 'x'.repeat(7), 'x'.repeat(8), 'x'.repeat(63), 'pod-ü']) {
    assert.ok(kubeInstanceId(name) <= Number.MAX_SAFE_INTEGER, `${name}: JS-safe`);
  }
});

test('pod identity: the Downward API files win over POD_* variables; name and uid are required', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'podinfo-'));
  try {
    const env = { POD_NAME: 'env-pod', POD_UID: 'env-uid', POD_NAMESPACE: 'env-ns' };
    assert.deepEqual(podIdentity({ env, podinfoDir: dir }), { podName: 'env-pod', podUid: 'env-uid', namespace: 'env-ns' });
    writeFileSync(path.join(dir, 'pod_name'), 'file-pod\n');
    writeFileSync(path.join(dir, 'pod_uid'), '  \n');
    writeFileSync(path.join(dir, 'pod_namespace'), 'file-ns');
    assert.deepEqual(podIdentity({ env, podinfoDir: dir }), { podName: 'file-pod', podUid: 'env-uid', namespace: 'file-ns' }, 'an empty file counts as absent');
    const empty = path.join(dir, 'none');
    assert.throws(() => podIdentity({ env: { POD_UID: 'u' }, podinfoDir: empty }), /^Error: POD_NAME not available from file or environment$/);
    assert.throws(() => podIdentity({ env: { POD_NAME: 'p' }, podinfoDir: empty }), /^Error: POD_UID not available from file or environment$/);
    const warnings: string[] = [];
    const id = podIdentity({ env: { POD_NAME: 'p', POD_UID: 'u' }, podinfoDir: empty, warn: (m) => warnings.push(m) });
    assert.equal(id.namespace, 'default');
    assert.equal(warnings.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
