/**
 * What one streamed chunk costs on its way from the upstream's socket to the turn's text (issue 48): a call in flight
 * relays 30–100 chunks a second, so what each one allocates decides how many calls an instance holds
 * (docs/performance.md "Streamed calls in flight, issue 48"). Counted as promises, which every layer of async generators a
 * chunk passes makes: the count per chunk does not move with the machine's load, only with the code (the same reply
 * read off node:http alone, counted the same way, shows the hook counts). Measured in a
 * process of its own, with a promise hook counting, on an openai agent reading a real stream over loopback HTTP.
 */

import { expect, test } from 'vitest';
import { inOwnProcess } from '../../support/own-process.js';

const SCRIPT = (chunks: number) => `
import { createServer, request } from 'node:http';
import { createHook } from 'node:async_hooks';
import { createOpenAiAgent } from './lib/agent/upstream/openai.ts';

// One reply of N one-word chunks, each a full chat completion chunk, written as a stream of events.
const event = 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' word' } }] }) + '\\n\\n';
// The reader asks for each event once it has the one before (writeNext), so every event arrives alone, to a reader
// that waits for it, whatever the machine's speed: the count is the same from run to run.
let writeNext = () => undefined;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const n = Number(req.url.split('/')[2]); // /v1/<n>/chat/completions
    let sent = 0;
    writeNext = () => (sent++ < n ? res.write(event) : res.end('data: [DONE]\\n\\n'));
    writeNext();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = 'http://127.0.0.1:' + server.address().port;

const agentFor = (n) => createOpenAiAgent({ id: 'a', name: 'A', description: 'a', kind: 'upstream' }, {
  target: { agentId: 'a', url: base + '/v1/' + n, timeoutMs: 60_000, maxReplyBytes: 1 << 24 },
  model: 'm', maxTokens: 1, maxToolSteps: 1, maxToolCalls: 1, maxToolCallsPerReply: 8,
});
let promises = 0;
const hook = createHook({ init(_id, type) { if (type === 'PROMISE') promises++; } });

async function read(n) {
  const turn = { message: 'hi', sessionId: 's', history: [], signal: new AbortController().signal, usage: { record() {} } };
  promises = 0;
  hook.enable();
  let text = '';
  const take = (chunk) => {
    text += chunk;
    writeNext();
  };
  // As the turn reads it (ask.ts): pushed to a sink when the reply can be (lib/agent/push.ts), iterated otherwise.
  const reply = agentFor(n).reply(turn);
  if (typeof reply.pushTo === 'function') await reply.pushTo(take);
  else for await (const chunk of reply) take(chunk);
  hook.disable();
  if (text.length !== n * 5) throw new Error('read ' + text.length + ' characters of ' + n * 5);
  return promises;
}

// The floor: the same reply read straight off node:http's response, each chunk decoded, nothing else.
async function readRaw(n) {
  promises = 0;
  hook.enable();
  const res = await new Promise((resolve) => request(base + '/v1/' + n + '/chat/completions', { method: 'POST' }, resolve).end('{}'));
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res) {
    text += decoder.decode(chunk, { stream: true });
    writeNext();
  }
  hook.disable();
  if (!text.endsWith('[DONE]\\n\\n')) throw new Error('the raw read ended early');
  return promises;
}

// Something outside the read (seen on Node 22 in one run of several) can add promises while the hook counts, never
// take them away: the least of three counts is the read's own.
const perChunk = [];
const floor = [];
await read(10);
await readRaw(10);
for (let i = 0; i < 3; i++) {
  perChunk.push((await read(10 + ${chunks}) - await read(10)) / ${chunks});
  floor.push((await readRaw(10 + ${chunks}) - await readRaw(10)) / ${chunks});
}
server.close();
console.log(JSON.stringify({ perChunk: Math.min(...perChunk), floor: Math.min(...floor) }));
process.exit(0);
`;

test('a streamed chunk reaches the turn without a promise of its own: pushed from the socket to the turn, no generator passes it on', async () => {
  const { perChunk, floor } = await inOwnProcess<{ perChunk: number; floor: number }>(SCRIPT(500), {});
  // The hook counts: node:http's own async iterator, the floor, makes 6 a chunk.
  expect(floor).toBeGreaterThanOrEqual(1);
  // 14 a chunk over that floor at the start of issue 48 on Node 20, 22 and 24 alike (the read's two generators, the
  // format's request, `metered`, the format's `reply`, each passing the chunk on with promises of its own), 7 after
  // its step 2; none since the reply is pushed (lib/agent/push.ts): the socket's data handler parses the event and
  // hands its text to the turn's sink in the same turn, one promise per request, none per chunk.
  expect(perChunk).toBeLessThanOrEqual(0);
}, 60_000);
