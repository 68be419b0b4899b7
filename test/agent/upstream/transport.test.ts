/**
 * Upstream requests travel over node:http and node:https (lib/agent/upstream/transport.ts): an https upstream is
 * reached with its certificate verified as fetch verifies it, the request says who sends it and asks for no
 * encoding it would have to undo, and sequential calls share one kept-alive connection. Each case runs in its own
 * process, which trusts the test certificate only when started with NODE_EXTRA_CA_CERTS.
 */

import { createServer } from 'node:http';
import type { Server } from 'node:https';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureNode } from '../../../scripts/npm-cache.mjs';
import { inOwnProcess } from '../../support/own-process.js';
import { startHttpsServer, TEST_CA } from '../../support/tls.js';

interface Seen {
  userAgent?: string;
  acceptEncoding?: string;
  contentLength?: string;
  body: string;
  port?: number;
}

/** Longer than a pooled connection may sit idle (transport.ts IDLE_MS, 4 s). */
const PAUSE_MS = 4_500;

let server: Server;
let origin: string;
const seen: Seen[] = [];

beforeAll(async () => {
  ({ server, origin } = await startHttpsServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({
        userAgent: req.headers['user-agent'], acceptEncoding: req.headers['accept-encoding'],
        contentLength: req.headers['content-length'], body, port: req.socket.remotePort,
      });
      // A message asking to wait is answered PAUSE_MS late, its head too.
      if (body.includes('wait')) {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'late' } }] })}\n\ndata: [DONE]\n\n`), PAUSE_MS);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'over tls' } }] })}\n\n`;
      // A message asking for a pause is answered in two parts, PAUSE_MS apart.
      if (!body.includes('pause')) return res.end(`${event}data: [DONE]\n\n`);
      res.write(event);
      setTimeout(() => res.end(`${event}data: [DONE]\n\n`), PAUSE_MS);
    });
  }));
});
afterAll(() => server.close());

/** Sequential requests to the https upstream (MESSAGES), each read to its end; what they read, or the first failure. */
const SCRIPT = `
  const { postUpstream } = await import('./lib/agent/upstream/request.ts');
  const target = { agentId: 'tls', url: process.env.UPSTREAM_URL, timeoutMs: 10000, maxReplyBytes: 1 << 20 };
  const texts = [];
  try {
    for (const content of JSON.parse(process.env.MESSAGES)) {
      const reply = await postUpstream(target, { model: 'm', stream: true, messages: [{ role: 'user', content }] }, new AbortController().signal);
      let text = '';
      for await (const chunk of reply.chunks()) text += chunk;
      texts.push(text);
    }
    console.log(JSON.stringify({ texts }));
  } catch (error) {
    console.log(JSON.stringify({ error: error.message }));
  }
  process.exit(0);
`;

function callTwice(trustTestCa: boolean, messages = ['first', 'second ✓']): Promise<{ texts?: string[]; error?: string }> {
  return inOwnProcess(SCRIPT, {
    UPSTREAM_URL: `${origin}/v1/chat/completions`, MESSAGES: JSON.stringify(messages),
    ...(trustTestCa ? { NODE_EXTRA_CA_CERTS: TEST_CA } : {}),
  });
}

type Run = { texts?: string[]; error?: string };

test('an https upstream is reached over TLS, and sequential calls share one kept-alive connection', async () => {
  seen.length = 0;
  const { texts, error } = await callTwice(true);
  expect(error).toBeUndefined();
  expect(texts).toHaveLength(2);
  for (const text of texts!) expect(text).toContain('over tls');
  expect(seen).toHaveLength(2);
  expect(seen[0]!.port).toBe(seen[1]!.port);
});

test('the request names agent-mcp, declares its length in bytes and asks for no content encoding', async () => {
  seen.length = 0;
  await callTwice(true);
  const second = seen[1]!;
  expect(second.userAgent).toBe('agent-mcp');
  expect(second.acceptEncoding).toBeUndefined();
  expect(second.contentLength).toBe(String(Buffer.byteLength(second.body)));
  expect(JSON.parse(second.body).messages[0].content).toBe('second ✓');
});

test('an upstream whose certificate the process does not trust is refused before anything is sent', async () => {
  seen.length = 0;
  const { error } = await callTwice(false);
  expect(error).toBe('Agent tls: the connection to the upstream failed (DEPTH_ZERO_SELF_SIGNED_CERT).');
  expect(seen).toHaveLength(0);
});

test('an upstream that takes longer than a pooled connection may sit idle before it answers at all is waited for', async () => {
  seen.length = 0;
  const { texts, error } = await callTwice(true, ['wait before answering']);
  expect(error).toBeUndefined();
  expect(texts![0]).toContain('late');
}, 15_000);

test('a reply that pauses longer than a pooled connection may sit idle is read to its end', async () => {
  seen.length = 0;
  const { texts, error } = await callTwice(true, ['pause, then go on']);
  expect(error).toBeUndefined();
  expect(texts![0]!.match(/over tls/g)).toHaveLength(2);
}, 15_000);

test('on Node 24 with NODE_USE_ENV_PROXY=1, a request goes through HTTP_PROXY, as Node\'s fetch goes', async () => {
  const node24 = ensureNode(24);
  expect(node24, 'the pinned Node 24 (scripts/npm-cache.mjs)').toBeDefined();
  // A forward proxy that answers itself: the upstream's host does not resolve, so only a proxied request is answered.
  const asked: string[] = [];
  const proxy = createServer((req, res) => {
    asked.push(req.url!);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'over the proxy' } }] })}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const env = { UPSTREAM_URL: 'http://upstream.invalid/v1/chat/completions', MESSAGES: '["via the proxy"]', HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` };
    const proxied = await inOwnProcess<Run>(SCRIPT, { ...env, NODE_USE_ENV_PROXY: '1' }, { node: node24! });
    expect(proxied).toEqual({ texts: [expect.stringContaining('over the proxy')] });
    expect(asked).toEqual(['http://upstream.invalid/v1/chat/completions']);
    // Without the switch the variables are not followed, as fetch does not follow them.
    const direct = await inOwnProcess<Run>(SCRIPT, env, { node: node24! });
    expect(direct.error).toMatch(/^Agent tls: the connection to the upstream failed \((ENOTFOUND|EAI_AGAIN)\)\.$/);
    expect(asked).toHaveLength(1);
  } finally {
    proxy.close();
  }
}, 120_000);

/** A call to a plain-http upstream of its own; which of Node's TLS modules the process had loaded before and after. */
const PLAIN_HTTP_SCRIPT = `
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/event-stream' }).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { postUpstream } = await import('./lib/agent/upstream/request.ts');
  const tls = () => process.moduleLoadList.filter((name) => /^NativeModule (https|tls|_tls_)/.test(name));
  const before = tls();
  const target = { agentId: 'plain', url: 'http://127.0.0.1:' + server.address().port + '/v1', timeoutMs: 10000, maxReplyBytes: 1 << 20 };
  const reply = await postUpstream(target, { messages: [] }, new AbortController().signal);
  for await (const chunk of reply.chunks()) void chunk;
  console.log(JSON.stringify({ before, after: tls() }));
  process.exit(0);
`;

test('a call to a plain-http upstream loads neither node:https nor TLS', async () => {
  expect(await inOwnProcess(PLAIN_HTTP_SCRIPT, {})).toEqual({ before: [], after: [] });
});
