/** Test support: raw JSON-RPC over fetch, and a small SSE reader for response streams. */

import { request as httpRequest } from 'node:http';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from '../../lib/protocol/meta.js';
import { POST_HEADERS } from './server.js';

export function post(url: string, body: unknown, headers: Record<string, string> = {}, init: RequestInit = {}) {
  return fetch(url, { method: 'POST', headers: { ...POST_HEADERS, ...headers }, body: JSON.stringify(body), ...init });
}

/** A modern (2026-07-28) request with its required headers. */
export function postModern(url: string, id: number | string, method: string, params: Record<string, unknown> = {},
  options: { capabilities?: Record<string, unknown>; headers?: Record<string, string>; meta?: Record<string, unknown>; signal?: AbortSignal } = {}) {
  const name = method === 'resources/read' ? params.uri : params.name;
  return post(url, {
    jsonrpc: '2.0', id, method,
    params: { ...params, _meta: { [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: options.capabilities ?? {}, ...options.meta } },
  }, {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...options.headers,
  }, { signal: options.signal });
}

export interface SseEvent {
  id?: string;
  event?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events as they arrive; `next()` resolves with the next event, or undefined at the end. */
export function readSse(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const queue: SseEvent[] = [];
  let done = false;

  async function fill(): Promise<void> {
    while (queue.length === 0 && !done) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        break;
      }
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: SseEvent = { data: '' };
        let sawField = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          sawField = true;
          if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'retry') event.retry = Number(value);
          else if (field === 'data') event.data += value;
        }
        if (sawField) queue.push(event);
      }
    }
  }

  return {
    async next(): Promise<SseEvent | undefined> {
      await fill();
      return queue.shift();
    },
    /** Every remaining event's parsed JSON data (events with empty data are skipped). */
    async rest(): Promise<any[]> {
      const all: any[] = [];
      for (let e = await this.next(); e; e = await this.next()) if (e.data) all.push(JSON.parse(e.data));
      return all;
    },
    cancel: () => reader.cancel(),
  };
}

/**
 * Initializes on the legacy wire and returns the headers a client then sends: the version and the
 * `Mcp-Session-Id` the server issued, which is what identifies this client for cancellations, answers and resumption.
 */
export async function openSession(
  url: string, version = '2025-11-25', headers: Record<string, string> = {}, capabilities: Record<string, unknown> = {},
): Promise<Record<string, string>> {
  const response = await post(url, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: version, capabilities, clientInfo: { name: 'test', version: '1' } },
  }, { 'mcp-protocol-version': version, ...headers });
  const session = response.headers.get('mcp-session-id');
  if (!session) throw new Error(`initialize issued no Mcp-Session-Id (HTTP ${response.status})`);
  await response.body?.cancel();
  return { ...headers, 'mcp-protocol-version': version, 'mcp-session-id': session };
}

/**
 * A request to the server at `origin` with any Host header (fetch will not send a forged one); a POST carries
 * `body`. Resolves with the status and the body's text.
 */
export function sendWithHost(
  origin: string, path: string, host: string, method = 'GET', headers: Record<string, string> = {}, body = '{"jsonrpc":"2.0","id":1,"method":"ping"}',
): Promise<{ status: number; body: string }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { host, ...POST_HEADERS, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  });
}
