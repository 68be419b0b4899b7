/**
 * A pushed reply (lib/agent/push.ts) is still an agent's AsyncIterable<string> (types.ts Agent.reply): anything that
 * iterates it gets the text in order and the failure as thrown, and a reader that stops iterating ends the request
 * at its next chunk. An openai agent against a real node:http upstream on loopback.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isPushed } from '../../lib/agent/push.js';
import { createOpenAiAgent } from '../../lib/agent/upstream/openai.js';
import type { AgentTurn } from '../../lib/agent/types.js';

const closed: string[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    const message = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
    const [kind, id] = message.split(' ');
    res.on('close', () => void (res.writableFinished || closed.push(id!)));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const words = kind === 'endless' ? Infinity : 5;
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (sent < words) return void res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `w${sent++} ` } }] })}\n\n`);
      clearInterval(timer);
      if (kind === 'broken') res.end(`data: ${JSON.stringify({ error: { message: 'the model fell over' } })}\n\n`);
      else res.end('data: [DONE]\n\n');
    }, 10);
  });
});

let base: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const reply = (message: string) => {
  const agent = createOpenAiAgent({ id: 'a', name: 'A', description: 'a', kind: 'upstream', paid: false }, {
    target: { agentId: 'a', url: base, timeoutMs: 5_000, maxReplyBytes: 1 << 20 },
    model: 'm', maxTokens: 1, maxToolSteps: 1, maxToolCalls: 1, maxToolCallsPerReply: 8,
  });
  const turn = { message, sessionId: 's', history: [], signal: new AbortController().signal, usage: { record() {} } } as unknown as AgentTurn;
  return agent.reply(turn);
};

test('a pushed reply read by for await gives its text in order', async () => {
  const stream = reply(`words ${crypto.randomUUID()}`);
  expect(isPushed(stream)).toBe(true);
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks).toEqual(['w0 ', 'w1 ', 'w2 ', 'w3 ', 'w4 ']);
});

test('a pushed reply read by for await throws what ended it', async () => {
  const chunks: string[] = [];
  const read = (async () => {
    for await (const chunk of reply(`broken ${crypto.randomUUID()}`)) chunks.push(chunk);
  })();
  await expect(read).rejects.toThrow('Agent a reported an error in its reply.');
  expect(chunks).toHaveLength(5);
});

test('a reader that stops iterating ends the request: the upstream sees its connection closed', async () => {
  const id = crypto.randomUUID();
  let read = 0;
  for await (const chunk of reply(`endless ${id}`)) {
    void chunk;
    if (++read === 3) break;
  }
  await expect.poll(() => closed).toContain(id);
});
