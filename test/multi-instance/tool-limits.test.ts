/**
 * A limit per tool (RATE_LIMIT_TOOLS) held by two agent-mcp processes sharing one real redis-server (through the
 * Upstash REST bridge, with the real @upstash/ratelimit): concurrent calls of the limited tool spread over both
 * processes are admitted exactly up to the limit, and each refusal is a tool result with isError that says when to
 * try again, never a JSON-RPC error. The window is a day, so the burst never straddles a window boundary.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RETRY_AFTER_META } from '../../lib/protocol/errors.js';
import { startInstances, type Instances } from '../support/instances.js';
import { post, postModern } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const PROCESSES = 2;
const LIMIT = 3;
const CALLS = 8;
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let redis: SharedRedis;
let instances: Instances;
beforeAll(async () => {
  redis = await startSharedRedis();
  instances = await startInstances(PROCESSES, {
    ...redis.bridge.env,
    INSTANCE_APP: 'default',
    MCP_STATE_SECRET: 'm'.repeat(32),
    RATE_LIMIT_TOOLS: JSON.stringify({ chat_with_agent: `${LIMIT}/1d` }),
    RATE_LIMIT_TIMEOUT_MS: '30000',
  });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await redis?.stop();
});

const chat = (id: number, message: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } });

describe('a limit on one tool, shared by two processes', () => {
  test(`${CALLS} concurrent calls of the tool across ${PROCESSES} processes with limit ${LIMIT}: exactly ${LIMIT} run, the rest are isError results with retryAfterSeconds`, async () => {
    const replies = await Promise.all(Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(instances.urls[i % PROCESSES]!, chat(i, `hello ${i}`), LEGACY);
      expect(response.status).toBe(200);
      return response.json();
    }));
    expect(instances.output()).not.toContain('could not be checked');
    expect(replies.every((reply) => !('error' in reply))).toBe(true);
    const ran = replies.filter((reply) => !reply.result.isError);
    const refused = replies.filter((reply) => reply.result.isError);
    expect({ ran: ran.length, refused: refused.length }).toEqual({ ran: LIMIT, refused: CALLS - LIMIT });
    for (const reply of ran) expect(reply.result.content[0].text).toContain('[demo agent]');
    for (const { result } of refused) {
      const retryAfter = result._meta[RETRY_AFTER_META];
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(result.content).toEqual([{
        type: 'text',
        text: `Rate limit exceeded: at most ${LIMIT} calls of chat_with_agent per IP address every day. Retry after ${retryAfter} s.`,
      }]);
    }
  });

  test('on the 2026-07-28 wire the refusal is the same tool result, not an error in the range the revision reserves', async () => {
    const response = await postModern(instances.urls[1]!, 'modern', 'tools/call', { name: 'chat_with_agent', arguments: { message: 'again' } });
    expect(response.status).toBe(200);
    const reply = await response.json();
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ isError: true, resultType: 'complete', _meta: { [RETRY_AFTER_META]: expect.any(Number) } });
  });

  test('the limited tool is still listed, and other methods are not limited', async () => {
    for (const url of instances.urls) {
      const listed = await (await post(url, { jsonrpc: '2.0', id: 'list', method: 'tools/list' }, LEGACY)).json();
      expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
      expect((await post(url, { jsonrpc: '2.0', id: 'ping', method: 'ping' }, LEGACY)).status).toBe(200);
    }
  });

  test('each process logs the tool limit as shared on Upstash', () => {
    const lines = instances.output().split('\n').filter((line) => line.includes('rate limits:'));
    expect(lines).toHaveLength(PROCESSES);
    for (const line of lines) expect(line).toContain(`rate limits: ip off, principal off, tools chat_with_agent ${LIMIT}/1d (shared on Upstash;`);
  });
});
