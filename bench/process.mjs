/** Benchmark servers run as child processes that print "listening on <url>" once they serve. */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Starts `node ...args` in the repository root; resolves once it listens. `memory()` needs serve-built.mjs. */
export async function startServer(args, env = {}) {
  const child = spawn(process.execPath, ['--expose-gc', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  return {
    url,
    memory: () => new Promise((resolve) => {
      child.once('message', resolve);
      child.send('rss');
    }),
    // SIGKILL: srvx shuts down gracefully on SIGTERM and would wait for the load generator's idle sockets.
    stop: () => child.kill('SIGKILL'),
  };
}
