// Real etcd and nats-server for runtime tests, on free loopback ports, stopped after the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes.js';

export const ETCD_BIN = process.env.ETCD_BIN ?? '/usr/bin/etcd';
export const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface InfraServer {
  /** `http://127.0.0.1:P` for etcd, `nats://127.0.0.1:P` for NATS. */
  readonly url: string;
  /** Stops the server; the data directory (etcd) is kept for restart(). */
  stop(): Promise<void>;
  /** Starts it again on the same port (and data). */
  restart(): Promise<void>;
  /** Stops it for good and removes its data. */
  dispose(): Promise<void>;
}

function waitForPort(port: number, proc: ChildProcess, output: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (proc.exitCode !== null) return reject(new Error(`server exited early:\n${output()}`));
      const s = connect({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`server on port ${port} not up:\n${output()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function managed(name: string, argv: string[], port: number, url: string, cleanup: () => void): InfraServer & { start(): Promise<void> } {
  let proc: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    let out = '';
    const p = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    p.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    proc = p;
    await waitForPort(port, p, () => `${name}: ${out}`);
  };
  const stop = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  return {
    url,
    start,
    stop,
    restart: start,
    async dispose() {
      await stop();
      cleanup();
    },
  };
}

export async function startEtcd(): Promise<InfraServer> {
  const server = await etcdServer();
  await server.start();
  return server;
}

/** An etcd on free ports, not started yet: its url is known before it runs (a client started first). */
export async function etcdServer(): Promise<InfraServer & { start(): Promise<void> }> {
  const clientPort = await freePort();
  const peerPort = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dynamo-etcd-'));
  const url = `http://127.0.0.1:${clientPort}`;
  return managed(
    'etcd',
    [
      ETCD_BIN,
      '--data-dir', dataDir,
      '--listen-client-urls', url,
      '--advertise-client-urls', url,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `default=http://127.0.0.1:${peerPort}`,
      '--log-level', 'error',
    ],
    clientPort,
    url,
    () => rmSync(dataDir, { recursive: true, force: true }),
  );
}

/** TLS for a test nats-server: its certificate and key; with `verifyClientsCa`, clients need a certificate that CA signed. */
export interface NatsServerTls {
  cert: string;
  key: string;
  verifyClientsCa?: string;
}

/**
 * `jetStream`: run with JetStream (`-js`), storing in a temporary folder removed by dispose().
 * `tls`: clients must speak TLS.
 */
export async function startNats(opts: { jetStream?: boolean; tls?: NatsServerTls } = {}): Promise<InfraServer> {
  const port = await freePort();
  const argv = [NATS_BIN, '-a', '127.0.0.1', '-p', String(port)];
  const storeDir = opts.jetStream ? mkdtempSync(path.join(tmpdir(), 'dynamo-nats-js-')) : null;
  if (storeDir) argv.push('-js', '-sd', storeDir);
  if (opts.tls) argv.push('--tls', '--tlscert', opts.tls.cert, '--tlskey', opts.tls.key);
  if (opts.tls?.verifyClientsCa) argv.push('--tlsverify', '--tlscacert', opts.tls.verifyClientsCa);
  const server = managed('nats-server', argv, port, `nats://127.0.0.1:${port}`, () => {
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });
  await server.start();
  return server;
}
