/** Test support: a server on loopback that answers every GET with a redirect, to where `target` says. */

import { createServer } from 'node:http';

export interface Redirector {
  /** Its origin, `http://127.0.0.1:<port>`. */
  url: string;
  /** Requests it redirected, by path. */
  redirected: string[];
  close(): Promise<void>;
}

export async function startRedirector(target: (path: string) => string, status = 302): Promise<Redirector> {
  const redirected: string[] = [];
  const server = createServer((req, res) => {
    redirected.push(req.url ?? '');
    res.writeHead(status, { location: target(req.url ?? '/') }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    redirected,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
