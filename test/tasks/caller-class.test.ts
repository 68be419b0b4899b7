/**
 * Task limits hold per caller class, not per free session (2025-11-25 tasks §Resource Management): a caller without
 * a principal counts against the anonymous pool (TASK_MAX_ANONYMOUS) on both wires, whether it holds a session the
 * server issued for free or nothing, and within the pool a session holds at most TASK_MAX_PER_CALLER; a principal
 * holds TASK_MAX_PER_CALLER whatever session it calls from. Real loopback HTTP; a real token issuer.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { conformanceTaskTools } from '../fixtures/conformance-tasks.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { openSession, post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BOUNDS = { ttlMs: 60_000, pollIntervalMs: 50, maxPerCaller: 2, maxAnonymous: 3 };

/** A legacy task-augmented call of slow_compute; the JSON-RPC reply. */
async function askForTask(url: string, headers: Record<string, string>, id: number): Promise<any> {
  const response = await post(url, {
    jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 30 }, task: { ttl: 60_000 } },
  }, headers);
  return response.json();
}

describe('anonymous callers share one pool, whatever sessions they open and whichever wire they use', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createConformanceHandler({ tasks: BOUNDS }));
  });
  afterAll(() => server?.close());

  test('five free sessions asking for two tasks each get TASK_MAX_ANONYMOUS tasks in all; the rest are -32603 naming it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const replies: any[] = [];
    for (let s = 0; s < 5; s++) {
      const session = await openSession(server.mcpUrl);
      for (let i = 0; i < 2; i++) replies.push(await askForTask(server.mcpUrl, session, 10 * s + i));
    }
    expect(replies.filter((r) => r.result?.task?.status === 'working')).toHaveLength(3);
    const refused = replies.filter((r) => r.error);
    expect(refused).toHaveLength(7);
    for (const { error } of refused) expect(error).toMatchObject({ code: -32603, message: expect.stringContaining('TASK_MAX_ANONYMOUS'), data: { maxTasks: 3 } });
    expect(warn.mock.calls.flat().join('\n')).toContain('TASK_MAX_ANONYMOUS=3');

    // The pool is the modern wire's too: a task-capable anonymous call answers in the response.
    const modern = await postModern(server.mcpUrl, 99, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.1 } },
      { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect((await modern.json()).result).toMatchObject({ resultType: 'complete' });
  });
});

describe('a principal holds TASK_MAX_PER_CALLER whatever session it calls from', () => {
  let issuer: TestIssuer;
  let server: TestServer;
  beforeAll(async () => {
    issuer = await startIssuer();
    const env = { AUTH_ISSUER: issuer.issuer };
    const config = readAuthConfig(env)!;
    server = await startTestServer(createMcpHandler(createApp({
      definitions: [{ tools: conformanceTaskTools }],
      auth: createBearerAuth(readSignIn(env), env),
      tasks: BOUNDS,
      stateSecret: 's'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
    })));
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  test('two sessions of one principal get two tasks in all; another principal is not affected', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const now = Math.floor(Date.now() / 1000);
    const bearer = async (sub: string) => ({
      authorization: `Bearer ${await issuer.mint({ iss: issuer.issuer, aud: server.mcpUrl, sub, iat: now, exp: now + 120 })}`,
    });
    const ada = await bearer('ada');
    const replies: any[] = [];
    for (let s = 0; s < 2; s++) {
      const session = await openSession(server.mcpUrl, '2025-11-25', ada);
      for (let i = 0; i < 2; i++) replies.push(await askForTask(server.mcpUrl, session, 10 * s + i));
    }
    expect(replies.map((r) => (r.result?.task ? 'task' : r.error?.message.match(/TASK_MAX_\w+/)?.[0]))).toEqual([
      'task', 'task', 'TASK_MAX_PER_CALLER', 'TASK_MAX_PER_CALLER',
    ]);
    const bob = await openSession(server.mcpUrl, '2025-11-25', await bearer('bob'));
    expect((await askForTask(server.mcpUrl, bob, 1)).result.task.status).toBe('working');
  });
});
