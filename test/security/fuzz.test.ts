/**
 * A bounded fuzz run over real loopback HTTP against the routes and functions of `npm start`: a few thousand
 * hostile requests from a seeded generator (the same run every time; FUZZ_SEED and FUZZ_REQUESTS change it),
 * across both eras and the well-known routes, with odd headers, deep nesting, huge ids, lone surrogates,
 * prototype names and batches. The rules: no HTTP 5xx; every JSON body of the MCP endpoint is a JSON-RPC
 * message (or an array of them), every error code is one the protocol defines; discovery routes answer their
 * document or a well-formed error; nothing is logged as an unexpected failure.
 */

import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startLocalServer } from '../../scripts/local-server.js';
import {
  HEADER_MISMATCH, INSUFFICIENT_SCOPE, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, RATE_LIMITED, RESOURCE_NOT_FOUND_LEGACY, SESSION_NOT_FOUND, TRANSPORT_ERROR,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../lib/protocol/errors.js';
import { MODERN_VERSION, LEGACY_VERSIONS } from '../../lib/protocol/revisions.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3_000);
const CONCURRENCY = 16;
const SPEC_CODES = new Set([PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR, TRANSPORT_ERROR,
  RESOURCE_NOT_FOUND_LEGACY, HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION, RATE_LIMITED, INSUFFICIENT_SCOPE, SESSION_NOT_FOUND]);

/** mulberry32: a tiny seeded generator, so a failure replays exactly. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof random>;

const MCP_ROUTES = ['/mcp', '/api/mcp'];
const OTHER_ROUTES = ['/.well-known/mcp.json', '/mcp/server-card', '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/%2e%2e/x', '/', '/nowhere', '/api/nope', '/api/../api/mcp'];
const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel', 'server/discover',
  'notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'toString', 'constructor', '__proto__',
  'hasOwnProperty', 'valueOf', '', 'x'.repeat(5_000), 'tools/call\u0000', 'rpc.discover'];
const STRINGS = ['', ' ', 'a', '\ud800', '\udfff\ud800', 'é', '\u0000', '=?base64?!!?=', '=?base64?AAAA?=', '__proto__', 'constructor',
  'x'.repeat(10_000), '../../etc/passwd', 'agent://demo', 'chat_with_agent', 'demo', 'http://internal.example/x', '%00', '\r\nX-Injected: 1'];
const VERSIONS = [MODERN_VERSION, ...LEGACY_VERSIONS, '', '2099-01-01', 'latest', ' 2025-11-25 ', '\u00e9', '1'];

function value(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 3 ? 5 : 8)) {
    case 0: return r.pick(STRINGS);
    case 1: return r.pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, 1e-300, Number.MAX_SAFE_INTEGER]);
    case 2: return r.pick([true, false, null]);
    case 3: return r.pick(STRINGS) + r.int(1000);
    case 4: return {};
    case 5: return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = r.int(4); i > 0; i--) object[r.pick([...STRINGS, 'name', 'arguments', 'uri', '_meta', 'cursor', 'message', 'session_id'])] = value(r, depth + 1);
      return object;
    }
  }
}

const nested = (depth: number, r: Rng) => (r.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function params(r: Rng, method: string, modern: boolean): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  if (method === 'tools/call') {
    p.name = r.chance(0.7) ? 'chat_with_agent' : r.pick(STRINGS);
    p.arguments = r.chance(0.6)
      ? { agent_id: r.pick(['demo', ...STRINGS]), message: r.pick(['hello', ...STRINGS]), ...(r.chance(0.5) ? { session_id: r.pick(STRINGS) } : {}) }
      : value(r);
  } else if (method === 'resources/read' || method === 'resources/subscribe') p.uri = r.pick(STRINGS);
  else if (method === 'prompts/get') p.name = r.pick(STRINGS);
  else if (method === 'completion/complete') p.ref = { type: r.pick(['ref/prompt', 'ref/resource', 'x']), name: r.pick(STRINGS), uri: r.pick(STRINGS) }, p.argument = { name: r.pick(STRINGS), value: r.pick(STRINGS) };
  else if (method === 'notifications/cancelled') p.requestId = value(r), p.reason = value(r);
  else if (method === 'initialize') p.protocolVersion = r.pick(VERSIONS), p.capabilities = value(r), p.clientInfo = value(r);
  else if (r.chance(0.5)) Object.assign(p, value(r) as object);
  if (modern) {
    p._meta = {
      'io.modelcontextprotocol/protocolVersion': r.chance(0.8) ? MODERN_VERSION : r.pick(VERSIONS),
      ...(r.chance(0.8) ? { 'io.modelcontextprotocol/clientCapabilities': r.chance(0.7) ? {} : value(r) } : {}),
      ...(r.chance(0.2) ? { 'io.modelcontextprotocol/logLevel': r.pick(['debug', 'info', ...STRINGS]) } : {}),
    };
  }
  if (r.chance(0.1)) (p as Record<string, unknown>).requestState = r.pick(STRINGS);
  return p;
}

function message(r: Rng, modern: boolean): unknown {
  const method = r.pick(METHODS);
  const kind = r.int(10);
  const id = r.pick<unknown>([1, 'a', 0, -5, 1e308, 2 ** 64, 'x'.repeat(20_000), null, {}, [], true, 1.5, '\ud800']);
  if (kind === 0) return { jsonrpc: '2.0', id, result: value(r) };
  if (kind === 1) return { jsonrpc: '2.0', id, error: value(r) };
  const base: Record<string, unknown> = { jsonrpc: r.chance(0.95) ? '2.0' : r.pick(['1.0', 2, null]), method, params: params(r, method, modern) };
  if (kind > 3 && !method.startsWith('notifications/')) base.id = id;
  if (r.chance(0.05)) delete base.method;
  return base;
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function body(r: Rng): { text: string | Buffer; modern: boolean; method?: string } {
  const modern = r.chance(0.4);
  switch (r.int(14)) {
    case 0: return { text: nested(r.pick([65, 200, 5_000]), r), modern: false };
    case 1: return { text: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":${nested(5_000, r)}}}`, modern: false };
    case 2: return { text: r.pick(['', '{', 'null', '[]', '"x"', '1', 'true', '{"jsonrpc":"2.0"', '[1,2,3]', '{"__proto__":{"x":1}}']), modern: false };
    case 3: return { text: Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), modern: false };
    case 4: return { text: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chat_with_agent","arguments":{"agent_id":"demo","message":"\\ud800","session_id":"\\udfff"}}}', modern: false };
    case 5: {
      const batch = Array.from({ length: r.pick([0, 1, 2, 5, 32, 33, 40]) }, () => message(r, r.chance(0.1)));
      return { text: JSON.stringify(batch), modern: false };
    }
    default: {
      const m = message(r, modern) as { method?: string };
      return { text: JSON.stringify(m), modern, method: typeof m.method === 'string' ? m.method : undefined };
    }
  }
}

function generate(r: Rng, port: number): Case {
  const mcp = r.chance(0.8);
  const path = mcp ? r.pick(MCP_ROUTES) : r.pick(OTHER_ROUTES);
  const method = r.chance(0.8) ? 'POST' : r.pick(['GET', 'DELETE', 'OPTIONS', 'PUT', 'HEAD', 'PATCH']);
  const headers: Record<string, string> = {
    host: r.chance(0.93) ? `localhost:${port}` : r.pick(['localhost:99999', 'localhost:-1', 'localhost:abc', '', 'evil.example', '[::1]', `127.0.0.1:${port}`, '[::1]:99999', 'a'.repeat(300), 'localhost:0']),
    'content-type': r.chance(0.93) ? 'application/json' : r.pick(['text/plain', '', 'application/json; charset=latin1', 'application/jsonx', '*/*', 'multipart/form-data; boundary=x']),
    accept: r.chance(0.93) ? 'application/json, text/event-stream' : r.pick(['', '*/*', 'text/html', 'application/json', 'text/event-stream', 'application/*;q=0']),
  };
  if (r.chance(0.15)) headers.origin = r.pick(['null', 'http://evil.example', 'http://localhost:5173', 'javascript:alert(1)', '%%%', 'http://[::1]:99999', 'file://']);
  if (r.chance(0.1)) headers['mcp-session-id'] = r.pick(STRINGS.filter((s) => /^[\x21-\x7e]*$/.test(s)));
  if (r.chance(0.1)) headers['last-event-id'] = r.pick(['0', '-1', 'x', 'stream:999', '=?base64?AA?=', 'a'.repeat(2_000), `${crypto.randomUUID()}:5`]);
  const b = method === 'POST' || r.chance(0.2) ? body(r) : undefined;
  if (b?.modern || r.chance(0.05)) {
    if (r.chance(0.9)) headers['mcp-protocol-version'] = r.chance(0.8) ? MODERN_VERSION : r.pick(VERSIONS);
    if (b?.method !== undefined && r.chance(0.85)) headers['mcp-method'] = r.chance(0.9) ? encode(b.method) : r.pick(STRINGS.filter(isAscii));
    if (r.chance(0.5)) headers['mcp-name'] = r.pick(['chat_with_agent', 'agent://demo', '=?base64?!!?=', '=?base64?Y2hhdF93aXRoX2FnZW50?=', 'x']);
  } else if (r.chance(0.7)) headers['mcp-protocol-version'] = r.pick(VERSIONS.filter(isAscii));
  if (r.chance(0.05)) headers['mcp-param-x'] = r.pick(['1', '=?base64?AA==?=', 'y']);
  return { method, path, headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => isAscii(v))), body: b ? Buffer.from(b.text) : undefined };
}

const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);
const encode = (s: string) => (isAscii(s) && s.trim() === s && s !== '' ? s : `=?base64?${Buffer.from(s).toString('base64')}?=`);

let server: { url: string; close(): Promise<void> };
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
beforeAll(async () => {
  server = await startLocalServer({ port: 0 });
});
afterAll(async () => {
  agent.destroy();
  await server?.close();
});

function send(port: number, c: Case): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: c.path, method: c.method, agent, headers: {
      ...c.headers, ...(c.body ? { 'content-length': String(c.body.length) } : {}),
    } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer in 15 s: ${c.method} ${c.path}`)));
    req.on('error', reject);
    req.end(c.body);
  });
}

/** Problems with one JSON-RPC value (a message, or a batch's array of them). */
function checkRpc(value: unknown): string | undefined {
  const messages = Array.isArray(value) ? value : [value];
  for (const m of messages as Array<Record<string, any>>) {
    if (typeof m !== 'object' || m === null || m.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
    if ('error' in m) {
      if (!Number.isInteger(m.error?.code) || typeof m.error?.message !== 'string') return 'malformed error object';
      if (!SPEC_CODES.has(m.error.code)) return `code ${m.error.code} is no protocol code`;
    } else if (!('result' in m) && typeof m.method !== 'string') return 'neither result, error nor method';
  }
  return undefined;
}

function checkReply(c: Case, reply: { status: number; type: string; body: string }): string | undefined {
  if (reply.status >= 500) return `HTTP ${reply.status}`;
  if (reply.body === '' || c.method === 'HEAD') return undefined;
  const mcp = MCP_ROUTES.includes(c.path) || c.path === '/api/../api/mcp' || reply.status === 400 && c.headers.host !== undefined;
  if (reply.type.startsWith('text/event-stream')) {
    for (const line of reply.body.split('\n')) {
      if (!line.startsWith('data:') || line.trim() === 'data:') continue;
      const problem = checkRpc(JSON.parse(line.slice(5)));
      if (problem) return `SSE event: ${problem}`;
    }
    return undefined;
  }
  if (!reply.type.startsWith('application/json') && !reply.type.includes('json')) return undefined; // landing page, 404 text
  let json: unknown;
  try {
    json = JSON.parse(reply.body);
  } catch {
    return 'a JSON content type with a body that is not JSON';
  }
  if (mcp && (json as { jsonrpc?: unknown }).jsonrpc !== undefined) return checkRpc(json);
  if (mcp && MCP_ROUTES.includes(c.path)) return checkRpc(json);
  // A discovery document, or its error: an object either way.
  return typeof json === 'object' && json !== null ? undefined : 'a discovery reply that is not an object';
}

test(`${REQUESTS} hostile requests (seed ${SEED}): no 5xx, every MCP body JSON-RPC with protocol codes`, async () => {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const port = Number(new URL(server.url).port);
  const r = random(SEED);
  const cases = Array.from({ length: REQUESTS }, () => generate(r, port));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      try {
        const reply = await send(port, c);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        const problem = checkReply(c, reply);
        if (problem) failures.push(`${problem}: ${c.method} ${c.path} ${JSON.stringify(c.headers).slice(0, 300)} ${c.body?.toString().slice(0, 300)} → ${reply.body.slice(0, 300)}`);
      } catch (error) {
        failures.push(`${(error as Error).message}: ${c.method} ${c.path}`);
      }
    }
  }));
  console.info(`[fuzz] ${REQUESTS} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  expect(failures.slice(0, 10)).toEqual([]);
  expect(errors.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('unexpected failure'))).toEqual([]);
}, 60_000);
