/**
 * Test support: a POST from a given loopback address (127.0.0.2, 127.0.0.3 …: Linux routes all of 127/8 to the
 * loopback interface), so one test process can be many callers known only by their address, as the server sees them.
 */

import { request, type IncomingHttpHeaders } from 'node:http';
import { POST_HEADERS } from './server.js';

export function postFrom(
  address: string, url: string, body: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; json: any }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.hostname === 'localhost' ? '127.0.0.1' : target.hostname, port: target.port, path: target.pathname, method: 'POST',
      localAddress: address, headers: { ...POST_HEADERS, ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
        try {
          resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : undefined });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
