/** Benchmark servers run as child processes that print "listening on <url>" once they serve. */

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Clock ticks a second, the unit of /proc's CPU times (Linux); undefined elsewhere. */
let ticks;
const ticksPerSecond = () => (ticks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || undefined);

/**
 * CPU time (user + system, ms) process `pid` has used, all its threads, from /proc/<pid>/stat; undefined where
 * there is no /proc. Read from outside, so every server, the floors included, is measured the same way.
 */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const perSecond = ticksPerSecond();
    return perSecond ? ((Number(fields[11]) + Number(fields[12])) * 1000) / perSecond : undefined;
  } catch {
    return undefined;
  }
}

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
  const ask = (message) => new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
  return {
    url,
    cpuMs: () => cpuMsOf(child.pid),
    memory: () => ask('rss'),
    /** A question over the IPC channel (bench/side-channel.mjs), answered by the child's next message. */
    ask,
    // SIGKILL: srvx shuts down gracefully on SIGTERM and would wait for the load generator's idle sockets.
    stop: () => child.kill('SIGKILL'),
  };
}
