/**
 * Test support: an https server on loopback with the test certificate in test/fixtures/tls (self-signed for
 * localhost and 127.0.0.1, good until 2126; its key is a test fixture, not a secret). A process that must trust it
 * is started with NODE_EXTRA_CA_CERTS=TEST_CA, which Node reads at start-up.
 */

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const TEST_CA = fileURLToPath(new URL('../fixtures/tls/localhost-cert.pem', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/localhost-key.pem', import.meta.url));

export async function startHttpsServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ origin: string; server: Server }> {
  const server = createServer({ cert: readFileSync(TEST_CA), key: readFileSync(KEY) }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `https://localhost:${(server.address() as { port: number }).port}`, server };
}
