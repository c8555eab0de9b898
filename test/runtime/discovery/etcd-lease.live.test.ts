import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { EtcdDiscoveryBackend } from '../../../src/runtime/discovery/etcd-backend.js';
import { PlaneStatus } from '../../../src/runtime/plane-status.js';
import { eventually } from '../../support/in-process.js';
import { startEtcd, type InfraServer } from '../../support/infra-servers.js';

let etcd: InfraServer;
let admin: Etcd3;

before(async () => {
  etcd = await startEtcd();
  admin = new Etcd3({ hosts: [etcd.url] });
});

after(async () => {
  admin.close();
  await etcd.dispose();
});

/** What etcd holds under `key` and the lease it is attached to, or null. */
async function stored(key: string): Promise<{ value: string; lease: string } | null> {
  const res = await admin.get(key).exec();
  const kv = res.kvs[0];
  return kv ? { value: kv.value.toString('utf8'), lease: kv.lease.toString() } : null;
}

function logged(): { planes: PlaneStatus; lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const planes = new PlaneStatus({ warn: (_o, msg) => lines.push({ level: 'warn', msg }), info: (_o, msg) => lines.push({ level: 'info', msg }) });
  return { planes, lines };
}

test('an expired lease of a process that serves on is granted again under its id, with its keys', async () => {
  const { planes, lines } = logged();
  const backend = new EtcdDiscoveryBackend({
    endpoints: [etcd.url],
    leaseTtlSecs: 3,
    connection: planes.connection('discovery', `etcd at ${etcd.url}`),
    regrantExpiredLeases: true,
  });
  const lease = await backend.grantLease();
  let lost: Error | null = null;
  lease.onLost((err) => (lost = err));
  try {
    await lease.create('test/regrant/a', 'value-a');
    // What a blocked event loop past the TTL leaves behind: the lease gone, its keys with it.
    await admin.leaseClient.leaseRevoke({ ID: lease.id.toString() });
    assert.equal(await stored('test/regrant/a'), null);
    let back: { value: string; lease: string } | null = null;
    const poll = setInterval(() => void stored('test/regrant/a').then((s) => (back = s)), 100);
    try {
      await eventually(() => back !== null && planes.isUp('discovery'), 20_000, 'the key back and the plane up');
    } finally {
      clearInterval(poll);
    }
    assert.deepEqual(back, { value: 'value-a', lease: lease.id.toString() }, 'same value, same lease id');
    assert.equal(lost, null, 'the lease is not reported lost');
    assert.deepEqual(
      lines.map((l) => l.level),
      ['warn', 'info'],
      `one line when it expired, one when it is back: ${JSON.stringify(lines)}`,
    );
    assert.match(lines[0]!.msg, new RegExp(`lease ${lease.id.toString(16)} expired; granting it again`));
    // Kept alive from then on: still there after more than a TTL.
    await new Promise((r) => setTimeout(r, 4000));
    assert.deepEqual(await stored('test/regrant/a'), { value: 'value-a', lease: lease.id.toString() });
  } finally {
    await lease.revoke();
    await backend.close();
  }
});

test('without re-granting (workers, which exit and are restarted), an expired lease is reported lost', async () => {
  const backend = new EtcdDiscoveryBackend({ endpoints: [etcd.url], leaseTtlSecs: 3 });
  const lease = await backend.grantLease();
  let lost: Error | null = null;
  lease.onLost((err) => (lost = err));
  try {
    await lease.create('test/regrant/b', 'value-b');
    await admin.leaseClient.leaseRevoke({ ID: lease.id.toString() });
    await eventually(() => lost !== null, 20_000, 'the loss to be reported');
    assert.equal(await stored('test/regrant/b'), null);
  } finally {
    await lease.revoke().catch(() => undefined);
    await backend.close();
  }
});
