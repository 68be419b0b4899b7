/** A node:http POST for the benchmarks that call an upstream as agent-mcp does (bench/proxy.mjs, bench/proxy-floor.mjs). */

import { Agent, request } from 'node:http';

/** A keep-alive agent as lib/agent/upstream/transport.ts makes one. */
export const keepAliveAgent = () => new Agent({ keepAlive: true, timeout: 4_000 });

/** POSTs `body` to `url` through `agent` and reads the reply whole, as text. */
export function postWithHttp(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
