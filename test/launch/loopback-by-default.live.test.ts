// Closed by default: a worker on a single-host discovery backend (file, mem) binds and publishes its
// TCP request plane and ZMQ event publisher on loopback; on a cluster backend (etcd) it binds where
// configured (all interfaces by default) and says once that its request plane is open without TLS.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMocker, type RunningMocker } from '../../src/launch/index.js';
import { EVENT_CHANNELS_BUCKET, INSTANCES_BUCKET, type DistributedRuntime } from '../../src/runtime/index.js';
import { capturingLogger } from '../support/captured-logs.js';
import { startEtcd, type InfraServer } from '../support/infra-servers.js';
import { runConfig } from '../support/run-config.js';

const OPEN_WARNING = /TCP request plane listens beyond loopback without TLS/;

function mockerConfig(env: Record<string, string>) {
  return runConfig(['mocker', '--namespace', 'listen-hosts', '--speedup-ratio', '100'], { DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq', ...env });
}

/** Every `host:port` the runtime's process published in discovery: request-plane transports and ZMQ channels. */
async function publishedAddresses(runtime: DistributedRuntime): Promise<string[]> {
  const values: string[] = [];
  for (const bucket of [INSTANCES_BUCKET, EVENT_CHANNELS_BUCKET]) {
    const stop = await runtime.discovery.watch(`${bucket}/`, (event) => {
      if (event.type === 'put') values.push(event.value);
    });
    stop();
  }
  return values.flatMap((value) => [...value.matchAll(/"tcp":"([^"/]+)|tcp:\/\/([^"/]+)/g)].map((m) => (m[1] ?? m[2])!));
}

/** This host's first address other processes could dial it on, if it has one. */
function externalAddress(): string | undefined {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const addr of addrs ?? []) if (addr.family === 'IPv4' && !addr.internal) return addr.address;
  }
  return undefined;
}

/** Whether a connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

describe('a mocker on file discovery', () => {
  let dir: string;
  let workers: RunningMocker;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'listen-hosts-'));
    workers = await startMocker(mockerConfig({ DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: dir }), capturingLogger('info', lines));
  });
  after(async () => {
    await workers.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('publishes its request plane and event publisher on loopback only', async () => {
    const addresses = await publishedAddresses(workers.runtimes[0]!);
    assert.ok(addresses.length >= 2, `a request plane and a ZMQ publisher: ${addresses.join(', ')}`);
    for (const address of addresses) assert.match(address, /^127\.0\.0\.1:\d+$/);
    const external = externalAddress();
    // Bound to loopback, not merely published there: the same port is closed on the host's address.
    if (external) for (const address of addresses) assert.equal(await accepts(external, portOf(address)), false, `${address} on ${external}`);
    for (const address of addresses) assert.equal(await accepts('127.0.0.1', portOf(address)), true, address);
  });

  test('says nothing about open listeners', () => {
    assert.deepEqual(lines.filter((l) => OPEN_WARNING.test(String(l.msg))), []);
  });
});

describe('a mocker on etcd discovery', () => {
  let etcd: InfraServer;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => etcd.dispose());

  test('binds where configured (all interfaces by default) and warns once that its request plane has no TLS', async () => {
    const lines: Record<string, unknown>[] = [];
    const workers = await startMocker(mockerConfig({ ETCD_ENDPOINTS: etcd.url, DYN_DISCOVERY_BACKEND: 'etcd', DYN_MOCKER_NUM_WORKERS: '2' }), capturingLogger('info', lines));
    try {
      const warnings = lines.filter((l) => OPEN_WARNING.test(String(l.msg)));
      assert.equal(warnings.length, 1, JSON.stringify(lines));
      assert.equal(warnings[0]!.level, 40);
      assert.match(String(warnings[0]!.address), /^0\.0\.0\.0:\d+$/);
      const external = externalAddress();
      if (external) {
        const [address] = await publishedAddresses(workers.runtimes[0]!);
        assert.equal(address!.split(':')[0], external);
      }
    } finally {
      await workers.stop();
    }
  });

  test('a request plane bound to loopback by DYN_TCP_RPC_HOST is not warned about', async () => {
    const lines: Record<string, unknown>[] = [];
    const workers = await startMocker(mockerConfig({ ETCD_ENDPOINTS: etcd.url, DYN_DISCOVERY_BACKEND: 'etcd', DYN_TCP_RPC_HOST: '127.0.0.1' }), capturingLogger('info', lines));
    try {
      assert.deepEqual(lines.filter((l) => OPEN_WARNING.test(String(l.msg))), []);
    } finally {
      await workers.stop();
    }
  });
});
