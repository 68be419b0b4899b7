/**
 * Test support for the official SDK clients: a v2 client pinned to one era, handlers that answer the
 * server's questions and remember what was asked, and a recorder of the HTTP exchanges a handler sees.
 */

import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import type { FetchHandler } from '../../scripts/local-server.js';

export type Era = 'legacy' | 'modern';
export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';

/** A `@modelcontextprotocol/client` 2.x client speaking one era: legacy `initialize`, or pinned 2026-07-28. */
export function createV2Client(era: Era, capabilities: ClientCapabilities = {}): Client {
  return new Client(
    { name: 'agent-mcp-tests', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } },
  );
}

/** Connects `client` over Streamable HTTP to `url` (sending `headers` on every request) and returns the transport. */
export async function connectHttp(client: Client, url: string, headers?: Record<string, string>): Promise<StreamableHTTPClientTransport> {
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined);
  await client.connect(transport);
  return transport;
}

type ElicitContent = Record<string, string | number | boolean | string[]>;

/** Installs an elicitation handler that accepts with `answer(params)`; returns the params it was asked with. */
export function answerElicitation(client: Client, answer: (params: any) => ElicitContent): any[] {
  const asked: any[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: answer(request.params) };
  });
  return asked;
}

/** Installs a sampling handler that answers `text`; returns the params it was asked with. */
export function answerSampling(client: Client, text: string): any[] {
  const asked: any[] = [];
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.push(request.params);
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text } };
  });
  return asked;
}

/** One POST the handler received: its JSON body (recorded on arrival) and, once answered, the response head. */
export interface Exchange {
  body: any;
  requestHeaders: Headers;
  status?: number;
  contentType?: string | null;
  responseHeaders?: Headers;
}

/**
 * Wraps a handler and records every POST it receives, in arrival order. The body is recorded before the
 * handler runs, so a message is visible as soon as the server could have acted on it.
 */
export function recordTraffic(handler: FetchHandler) {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    /** Exchanges from index `mark` on (take `exchanges.length` as a mark before acting). */
    since: (mark: number) => exchanges.slice(mark),
    handler: async (request: Request): Promise<Response> => {
      if (request.method !== 'POST') return handler(request);
      const exchange: Exchange = { body: await request.clone().json().catch(() => undefined), requestHeaders: request.headers };
      exchanges.push(exchange);
      const response = await handler(request);
      exchange.status = response.status;
      exchange.contentType = response.headers.get('content-type');
      exchange.responseHeaders = response.headers;
      return response;
    },
  };
}

/** The JSON-RPC methods of recorded exchanges (responses, which have none, are left out). */
export const methodsOf = (exchanges: Exchange[]) =>
  exchanges.map((e) => e.body?.method).filter((m): m is string => typeof m === 'string');

/** A JSON-RPC response the client POSTed (an answer to a server→client request). */
export const isClientAnswer = (e: Exchange) =>
  e.body !== undefined && !('method' in e.body) && 'id' in e.body && ('result' in e.body || 'error' in e.body);

/** The text of a tool result's first content block. */
export function firstText(result: object): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return first?.type === 'text' ? first.text ?? '' : '';
}
