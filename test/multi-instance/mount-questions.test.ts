/**
 * A mounted server's question to a 2025-wire caller, answered by a POST that reaches another agent-mcp process:
 * the answer travels through the shared store (real redis-server behind the Upstash REST bridge) to the process
 * whose forwarded call waits, and on to the mount.
 */

import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAskingLegacyMount, type AskingMount } from '../support/asking-mounts.js';
import { startInstances, type Instances } from '../support/instances.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

let redis: SharedRedis;
let mount: AskingMount;
let instances: Instances;

beforeAll(async () => {
  [redis, mount] = await Promise.all([startSharedRedis(), startAskingLegacyMount()]);
  instances = await startInstances(2, {
    ...redis.bridge.env,
    STORE_WATCH_MS: '1000',
    INSTANCE_APP: 'default',
    MCP_STATE_SECRET: 's'.repeat(32),
    MCP_MOUNTS: JSON.stringify([{ name: 'old', url: mount.url }]),
  });
}, 60_000);

afterAll(async () => {
  await instances?.stop();
  await mount?.close();
  await redis?.stop();
});

test('a mount\'s elicitation whose answer is POSTed to another process completes the forwarded call', async () => {
  const [first, second] = instances.urls as [string, string];
  const session = await openSession(first, '2025-11-25', {}, { elicitation: {} });
  const response = await post(first, { jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'old.ask_name', arguments: {} } }, session);
  const stream = readSse(response);
  let request: any;
  for (let event = await stream.next(); event; event = await stream.next()) {
    if (event.data && (request = JSON.parse(event.data)).method === 'elicitation/create') break;
  }
  expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });

  const answer = await post(second, { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'grace' } } }, session);
  expect(answer.status).toBe(202);
  const [reply] = await stream.rest();
  expect(reply).toMatchObject({ id: 'm1', result: { content: [{ type: 'text', text: 'hello grace (accept)' }] } });
}, 30_000);
