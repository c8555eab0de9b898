// `npm start` stopped with SIGTERM (what a supervisor or `kill` sends to npm) stops the server
// process too: the start script execs node, so the signal reaches the server itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { alive, freePort, REPO_ROOT } from '../support/processes.js';

test('SIGTERM to `npm start` stops the server process', async () => {
  const port = await freePort();
  const npm = spawn('npm', ['start', '--', '--http-host', '127.0.0.1', '--http-port', String(port)], {
    cwd: REPO_ROOT,
    env: { ...process.env, DYN_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a failed run can kill npm, the server and its pool processes at once.
    detached: true,
  });
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const npmExited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
  let serverPid = 0;
  try {
    // A generous bound: under a loaded machine the server has taken over a minute to listen.
    const deadline = Date.now() + 180_000;
    while (!serverPid) {
      assert.ok(Date.now() < deadline, `server never listened:\n${out}`);
      const line = out.split('\n').find((l) => l.includes('dynamo-ts serve listening'));
      if (line) serverPid = (JSON.parse(line) as { pid: number }).pid;
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.notEqual(serverPid, npm.pid);
    assert.equal((await fetch(`http://127.0.0.1:${port}/live`)).status, 200);
    npm.kill('SIGTERM');
    await npmExited;
    const gone = Date.now() + 60_000;
    while (alive(serverPid)) {
      assert.ok(Date.now() < gone, `server process ${serverPid} outlived npm:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(out, /"signal":"SIGTERM","msg":"shutting down"/, 'the server shut down gracefully, not killed');
  } finally {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // the group is already empty
    }
  }
});
