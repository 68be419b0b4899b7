/**
 * An upstream call's objects die young: once the call is over, its request, reply, headers and the listeners on the
 * caller's signal are garbage the young generation's collections free, so proxied calls do not fill the old
 * generation and bring on full collections (docs/performance.md, issue 22 round 6: listeners on an AbortSignal
 * written as EventListener objects were kept until a full collection on Node 22 and 24, and every call with them).
 * Measured in a Node 24 (Vercel's runtime) of its own, whose old generation is made large enough that no full
 * collection runs while it counts; the run says if one did, and the test then fails rather than trusting the count.
 */

import { expect, test } from 'vitest';
import { ensureNode } from '../../../scripts/npm-cache.mjs';
import { inOwnProcess } from '../../support/own-process.js';

const CALLS = 2_000;

const SCRIPT = `
import { createServer } from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { postUpstream } from './lib/agent/upstream/request.ts';
import { Cancellation } from './lib/server/cancellation.ts';

const stream = 'data: {"choices":[{"delta":{"content":"Hello"}}]}\\n\\ndata: [DONE]\\n\\n';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end(stream); });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const target = { agentId: 'a', url: 'http://127.0.0.1:' + server.address().port + '/v1/chat/completions', timeoutMs: 60_000, maxReplyBytes: 1 << 20 };

// As a chat call makes it: the turn's cancellation, linked to the request's signal, hands the upstream its own signal.
async function call(i) {
  const request = new AbortController();
  const turn = new Cancellation(request.signal);
  const reply = await postUpstream(target, { model: 'm', stream: true, messages: [{ role: 'user', content: 'call ' + i }] }, turn.signal);
  let text = '';
  for await (const chunk of reply.chunks()) text += chunk;
  turn.dispose();
  if (!text.includes('[DONE]')) throw new Error('unexpected reply: ' + text);
}

const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_used_size;
for (let i = 0; i < 500; i++) await call(i);
gc();
let full = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind !== constants.NODE_PERFORMANCE_GC_MINOR) full++; }).observe({ entryTypes: ['gc'] });
const before = oldSpace();
for (let i = 0; i < ${CALLS}; i++) await call(i);
// What is still young and dead goes now; what survives two collections is promoted, as a call's leftovers would be.
gc({ type: 'minor' });
gc({ type: 'minor' });
const after = oldSpace();
await new Promise((resolve) => setImmediate(resolve));
server.close();
console.log(JSON.stringify({ promotedPerCall: (after - before) / ${CALLS}, full }));
process.exit(0);
`;

test('an upstream call leaves nothing for the old generation: its request, reply and signal listeners die young', async () => {
  const node24 = ensureNode(24);
  expect(node24, 'the pinned Node 24 (scripts/npm-cache.mjs)').toBeDefined();
  const { promotedPerCall, full } = await inOwnProcess<{ promotedPerCall: number; full: number }>(SCRIPT, {}, {
    node: node24!,
    // A 1 MB young generation collects often, as under the memory store's bound; a large old one is never collected
    // while the run counts, and incremental marking, which could start one, is off.
    nodeFlags: ['--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1', '--initial-old-space-size=512', '--no-incremental-marking', '--no-memory-reducer'],
  });
  expect(full, 'full collections during the count (which would hide what was promoted)').toBe(0);
  // 5.5 KB a call when the upstream call and the cancellation listened as EventListener objects, 1.5 KB with the
  // cancellation's listener in a closure-built field; ~0.37 KB now, what the same calls with no cancellation leave.
  expect(promotedPerCall).toBeLessThan(1024);
}, 60_000);
