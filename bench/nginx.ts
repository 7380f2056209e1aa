import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './support';

/**
 * Debian's nginx as a round-robin load balancer in front of portal instances, for bench:load: the proxying of
 * docs/deploy/nginx.conf (keepalive to the instances, the client's address in X-Forwarded-For, streaming
 * responses unbuffered) without its TLS, on loopback, in a prefix directory of its own.
 */

export const NGINX = '/usr/sbin/nginx';

export function nginxAvailable(): boolean {
  return spawnSync(NGINX, ['-v']).status === 0;
}

export async function startNginx(port: number, instancePorts: number[]): Promise<{ url: string; stop(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-nginx-'));
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream picks_portal {
${instancePorts.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=10s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://picks_portal;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-g', 'daemon off;'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/login`);
  return { url, stop: () => child.kill('SIGTERM') };
}
