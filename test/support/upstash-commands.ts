/** Test support for code on Upstash: a real client whose script commands are counted, and a port that refuses. */

import { createServer } from 'node:net';
import type { Redis } from '@upstash/redis';
import { loadUpstashClient } from '../../lib/store/upstash-client.js';
import type { UpstashConfig } from '../../lib/store/upstash-config.js';

/** The real client, wrapped so every script command (EVALSHA, EVAL) is counted. */
export async function countingClient(config: UpstashConfig) {
  const real = await loadUpstashClient(config, { retries: 0 });
  const commands: string[] = [];
  const client = new Proxy(real, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if ((property === 'evalsha' || property === 'eval') && typeof value === 'function') {
        return (...args: unknown[]) => {
          commands.push(property);
          return value.apply(target, args);
        };
      }
      return value;
    },
  }) as Redis;
  return { client, commands };
}

/** A loopback port nothing listens on: connections are refused at once. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
