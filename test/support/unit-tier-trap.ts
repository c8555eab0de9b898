/**
 * Loaded with `--import` by `npm run test:unit`: in the unit tier a test that starts a child process, listens on a
 * port or opens a socket fails at that call, so a test that needs them cannot sit in the unit tier unnoticed.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`unit tier: this test ${what}; name it *.live.test.ts (see README, "Tests")`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('listens on a port');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('opens a network connection');
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as Record<string, unknown>)[name] = () => refuse(`starts a child process (${name})`);
}
syncBuiltinESMExports();
