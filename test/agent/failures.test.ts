import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentHarness, textOf, UPSTREAM_KEY, type AgentHarness } from './setup.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(() => h.close());

async function chat(agent_id: string, message: string, era: 'legacy' | 'modern' = 'legacy') {
  const client = await h.connect(era);
  return client.callTool({ name: 'chat_with_agent', arguments: { agent_id, message } });
}

describe('upstream failures are clear isError results, never a protocol error or a 5xx', () => {
  test.each([
    ['an upstream HTTP 500 names the agent and the status, not the body', 'echo', 'fault:500', /^Agent echo failed: the upstream answered HTTP 500\.$/],
    ['a platform 502 names the agent and the status, not the body', 'plat', 'fault:500', /^Agent plat failed: the upstream answered HTTP 502\.$/],
    ['a malformed stream is reported as malformed', 'echo', 'fault:garbage', /malformed reply/],
    ['a platform reply without text is reported', 'plat', 'fault:garbage', /no message\.content, content or text/],
    ['a stream cut before [DONE] is reported', 'echo', 'fault:drop', /ended before \[DONE\]|connection to the upstream failed/],
    ['an empty reply is reported', 'echo', 'fault:empty', /empty reply/],
    ['an unreachable upstream is a connection failure', 'gone', 'hello', /connection to the upstream failed/],
    ['an upstream that redirects is named, not followed', 'echo', 'fault:redirect', /answered with a redirect; configure the URL it redirects to/],
    ['an upstream that hangs hits the agent timeout', 'quick', 'fault:hang', /sent nothing for 300 ms \(AGENT_TIMEOUT_MS\)/],
  ])('%s', async (_name, agent, message, expected) => {
    const result = await chat(agent, message);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(expected);
    expect(textOf(result)).not.toContain(UPSTREAM_KEY);
    expect(textOf(result)).not.toContain('127.0.0.1');
  });

  test('AGENT_TIMEOUT_MS bounds a silence, not a reply: an agent that keeps writing for longer than it is not cut off', async () => {
    // 'quick' has a 300 ms timeout; this reply comes in 8-character pieces 100 ms apart, about 0.8 s in all.
    const message = `fault:pace 100 ${'a long answer, written slowly '.repeat(2)}`;
    const result = await chat('quick', message);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('written slowly');
  });

  test('failures are isError on the modern wire too', async () => {
    const result = await chat('echo', 'fault:500', 'modern');
    expect(result.isError).toBe(true);
  });
});

describe('cancellation reaches the upstream', () => {
  test.each(['legacy', 'modern'] as const)('on the %s wire, abandoning the call closes the upstream request', async (era) => {
    const client = await h.connect(era);
    const message = `fault:slow cancel ${era} ${crypto.randomUUID()}`;
    const abort = new AbortController();
    const call = client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message } },
      { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(call).rejects.toThrow();
    const log = await h.upstream.waitFor((entries) => entries.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
    const requested = log.find((e) => e.kind === 'request' && e.body?.messages?.at(-1)?.content === message)!;
    const closed = log.find((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message)!;
    expect(closed.at).toBeGreaterThanOrEqual(requested.at);
  });
});
