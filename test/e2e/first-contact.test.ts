// First contact: the CLI started with etcd, NATS or the Kubernetes API unreachable says so in one
// line naming the endpoint and the fix, without a stack trace (unless DYN_LOG=debug), and exits 1
// or retries for DYN_CONNECT_RETRY_SECS; a port in use is one line too. A pool of frontend
// processes says each once, and with DYN_CONNECT_RETRY_SECS serves once etcd comes up.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { etcdServer } from '../support/infra-servers.js';
import { KubeApiServer } from '../support/kube-api-server.js';
import { freePort, runCli, startProcess } from '../support/processes.js';

let closedPort: number;
let dir: string;

before(async () => {
  closedPort = await freePort();
  dir = mkdtempSync(path.join(tmpdir(), 'first-contact-'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

const lines = (output: string): string[] => output.split('\n').filter(Boolean);

function assertOneLine(output: string, pattern: RegExp): void {
  assert.deepEqual(lines(output).length, 1, output);
  assert.match(output, pattern);
  assert.doesNotMatch(output, /^\s+at /m, 'no stack trace');
}

for (const command of ['frontend', 'mocker']) {
  test(`${command} with etcd unreachable: one line naming the endpoint and the fix, exit 1`, async () => {
    const etcd = `http://127.0.0.1:${closedPort}`;
    const { code, output } = await runCli([command, ...(command === 'frontend' ? ['--http-port', '0'] : [])], { ETCD_ENDPOINTS: etcd, DYN_LOG: 'warn' });
    assert.equal(code, 1, output);
    assertOneLine(output, new RegExp(`^error: cannot reach etcd at ${etcd} \\(connect ECONNREFUSED [^)]+\\): start etcd there, set ETCD_ENDPOINTS .*--discovery-backend file`));
  });
}

// One process, and a pool of frontend processes (the default past two cores), where each process
// meets the same unreachable etcd and the primary alone tells it.
for (const workers of ['1', '2']) {
  test(`frontend with etcd unreachable and --http-workers ${workers}: the line once, no stack, exit 1`, async () => {
    const etcd = `http://127.0.0.1:${closedPort}`;
    const { code, output } = await runCli(['frontend', '--http-port', '0', '--http-workers', workers], { ETCD_ENDPOINTS: etcd, DYN_LOG: 'warn' });
    assert.equal(code, 1, output);
    assertOneLine(output, new RegExp(`^error: cannot reach etcd at ${etcd} \\(connect ECONNREFUSED [^)]+\\): start etcd there`));
  });
}

test('a pool of frontend processes with DYN_CONNECT_RETRY_SECS: told once, retried, given up once', async () => {
  const { code, output } = await runCli(['frontend', '--http-port', '0', '--http-workers', '2'], {
    ETCD_ENDPOINTS: `http://127.0.0.1:${closedPort}`,
    DYN_LOG: 'warn',
    DYN_CONNECT_RETRY_SECS: '2',
  });
  assert.equal(code, 1, output);
  const all = lines(output);
  assert.equal(all.length, 2, output);
  assert.match(all[0]!, /^warning: cannot reach etcd at .*; retrying for up to 2 s$/);
  assert.equal(all[1], 'error: still cannot reach etcd after 2 s; giving up');
});

test('a pool of frontend processes with DYN_CONNECT_RETRY_SECS and etcd started later: told once, then served', async () => {
  const etcd = await etcdServer();
  const port = await freePort();
  const pool = startProcess(
    ['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', '2', '--event-plane', 'zmq', '--request-plane', 'tcp'],
    { ETCD_ENDPOINTS: etcd.url, DYN_CONNECT_RETRY_SECS: '120', DYN_LOG: 'info' },
  );
  try {
    const warned = /^warning: cannot reach etcd at .*; retrying for up to 120 s$/m;
    await until('the retry warning', () => warned.test(pool.output()), pool);
    // A few seconds later, as an operator starting etcd after the frontend would.
    await new Promise((r) => setTimeout(r, 3000));
    await etcd.start();
    // Every process serving, not only the first one back (another may still wait out its back-off).
    await until('the pool serving', () => pool.output().includes('"msg":"dynamo-ts frontend processes listening"'), pool);
    assert.equal(await health(port), 200);
    const out = pool.output();
    assert.equal(out.match(/cannot reach etcd/g)?.length, 1, out);
    assert.doesNotMatch(out, /^error:/m);
    assert.doesNotMatch(out, /^\s+at /m, 'no stack trace');
    assert.equal(await pool.stop(30_000), 0, pool.output());
  } finally {
    await pool.stop(3000);
    await etcd.dispose();
  }
});

async function until(what: string, check: () => boolean | Promise<boolean>, proc: ReturnType<typeof startProcess>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await check())) {
    assert.equal(proc.proc.exitCode, null, `exited while waiting for ${what}:\n${proc.output()}`);
    assert.ok(Date.now() < deadline, `no ${what}:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function health(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return undefined;
  }
}

for (const workers of ['1', '2']) {
  test(`frontend on a port in use, --http-workers ${workers}: one line naming the address, exit 1`, async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const { code, output } = await runCli(['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', workers, '--discovery-backend', 'file'], {
        DYN_FILE_KV: dir,
        DYN_LOG: 'warn',
      });
      assert.equal(code, 1, output);
      assertOneLine(output, new RegExp(`^error: cannot listen on 127\\.0\\.0\\.1:${port} \\(address already in use\\): stop what holds it or choose another port`));
    } finally {
      holder.close();
    }
  });
}

test('DYN_LOG=debug adds the stack trace', async () => {
  const { code, output } = await runCli(['mocker'], { ETCD_ENDPOINTS: `http://127.0.0.1:${closedPort}`, DYN_LOG: 'debug' });
  assert.equal(code, 1);
  assert.match(output, /^error: cannot reach etcd/m);
  assert.match(output, /^\s+at /m);
});

test('NATS unreachable: one line naming NATS_SERVER and the fix', async () => {
  const nats = `nats://127.0.0.1:${closedPort}`;
  const { code, output } = await runCli(['frontend', '--http-port', '0', '--discovery-backend', 'file', '--event-plane', 'nats'], {
    NATS_SERVER: nats,
    DYN_FILE_KV: dir,
    DYN_LOG: 'warn',
  });
  assert.equal(code, 1, output);
  assertOneLine(output, new RegExp(`^error: cannot reach NATS at ${nats} \\(.+\\): start nats-server there, set NATS_SERVER .*--event-plane zmq`));
});

test('the Kubernetes API unreachable: one line naming the server and KUBECONFIG', async () => {
  const api = new KubeApiServer();
  await api.start();
  const kubeconfig = api.writeKubeconfig(dir);
  const url = api.url;
  await api.stop();
  const { code, output } = await runCli(['frontend', '--http-port', '0', '--discovery-backend', 'kubernetes', '--event-plane', 'zmq'], {
    KUBECONFIG: kubeconfig,
    POD_NAME: 'frontend-0',
    POD_UID: 'uid-f',
    POD_NAMESPACE: 'dyn',
    DYN_LOG: 'warn',
  });
  assert.equal(code, 1, output);
  assertOneLine(output, new RegExp(`^error: cannot reach the Kubernetes API at ${url.replace(/\./g, '\\.')} \\(namespace dyn\\) \\(.*ECONNREFUSED.*\\): check KUBECONFIG`));
});

test('kubernetes discovery without POD_NAME says which variable is missing', async () => {
  const { code, output } = await runCli(['mocker', '--discovery-backend', 'kubernetes'], { POD_UID: 'u', KUBECONFIG: path.join(dir, 'none'), DYN_LOG: 'warn' });
  assert.equal(code, 1, output);
  assert.match(output, /POD_NAME not available from file or environment/);
});

test('DYN_CONNECT_RETRY_SECS: told once, retried, then given up with a different line', async () => {
  const { code, output } = await runCli(['mocker'], { ETCD_ENDPOINTS: `http://127.0.0.1:${closedPort}`, DYN_LOG: 'warn', DYN_CONNECT_RETRY_SECS: '2' });
  assert.equal(code, 1, output);
  const all = lines(output);
  assert.equal(all.length, 2, output);
  assert.match(all[0]!, /^warning: cannot reach etcd at .*; retrying for up to 2 s$/);
  assert.equal(all[1], 'error: still cannot reach etcd after 2 s; giving up');
});
