// Which client connections a process holds, read from Linux's /proc: the socket inodes among its
// file descriptors, matched against the kernel's TCP table. A drill reads this for a frontend
// process just before killing it, so the streams cut with it are known by their client ports.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Remote ports of the connections in a /proc/net/tcp `table` whose local port is `localPort` and
 * whose socket inode is in `inodes`.
 */
export function peerPortsInTable(table: string, inodes: ReadonlySet<string>, localPort: number): Set<number> {
  const ports = new Set<number>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    // 0A: a listening socket, no connection.
    if (f.length < 10 || f[3] === '0A' || !inodes.has(f[9]!)) continue;
    const local = Number.parseInt(f[1]!.split(':')[1]!, 16);
    if (local === localPort) ports.add(Number.parseInt(f[2]!.split(':')[1]!, 16));
  }
  return ports;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Client ports of the TCP connections to `localPort` that process `pid` holds. */
export function peerPortsOf(pid: number, localPort: number): Set<number> {
  const inodes = socketInodes(pid);
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table = '';
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const p of peerPortsInTable(table, inodes, localPort)) ports.add(p);
  }
  return ports;
}
