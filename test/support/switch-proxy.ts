/**
 * Test support: a TCP proxy on loopback in front of a real server that can be switched off (new and open
 * connections are dropped, as when a host goes down) and on again, at the same address; or stalled: connections
 * are accepted and what a client sends on any of them is swallowed, so its request never gets an answer (a
 * store that hangs rather than refuses). A connection that carried a request while stalled stays hung for good,
 * as a black-holed request would; connections left idle work again once the stall ends.
 */

import { createServer, connect, type Socket } from 'node:net';

export interface SwitchProxy {
  url: string;
  setDown(down: boolean): void;
  setStalled(stalled: boolean): void;
  close(): Promise<void>;
}

export async function startSwitchProxy(target: string): Promise<SwitchProxy> {
  const { hostname, port } = new URL(target);
  let down = false;
  let stalled = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    let hung = false;
    client.on('data', (chunk: Buffer) => {
      if (stalled) hung = true;
      if (!hung) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!hung) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    setDown(value) {
      down = value;
      if (value) for (const socket of open) socket.destroy();
    },
    setStalled(value) {
      stalled = value;
    },
    close: () => new Promise((resolve) => {
      for (const socket of open) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
