// Debian's nginx as a plain reverse proxy, started as a child process with its own generated config
// and prefix directory in a temp folder (no system service, nothing outside the folder touched).
// One worker process, as the gateway it is compared with is one process; keep-alive to the upstream.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const NGINX = '/usr/sbin/nginx';

export interface NginxProxy {
  pid: number;
  stop(): Promise<void>;
}

function config(dir: string, listenPort: number, upstreamPort: number): string {
  const temp = (name: string): string => `${name}_temp_path ${path.join(dir, name)};`;
  return `worker_processes 1;
daemon off;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  upstream canned { server 127.0.0.1:${upstreamPort}; keepalive 128; }
  server {
    listen 127.0.0.1:${listenPort};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://canned;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`;
}

/** Starts nginx on `listenPort` in front of `upstreamPort`; the caller waits for it to answer. */
export function startNginx(listenPort: number, upstreamPort: number): NginxProxy {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-nginx-'));
  mkdirSync(path.join(dir, 'logs'));
  writeFileSync(path.join(dir, 'nginx.conf'), config(dir, listenPort, upstreamPort));
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    async stop() {
      // SIGQUIT: nginx's graceful shutdown of master and workers.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
