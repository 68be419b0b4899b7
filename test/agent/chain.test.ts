/**
 * What one request may cost when agents call agents (docs/security.md "What one request can cost"): three agents
 * that may each call any agent (`agent:*`), on a scripted fake model that asks for as many calls as it may at
 * every step, reached by official SDK clients over HTTP on loopback. Counts are what the fake model received.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postModern } from '../support/rpc.js';
import type { UpstreamLogEntry } from '../support/upstream.js';
import type { InProcessAgentDefinition } from '../../lib/agent/index.js';
import { textOf } from './setup.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness, type ToolsHarnessOptions } from './tools-setup.js';

const TEAM = { tools: ['agent:*', 'docs.echo'] };
const AGENTS = { alpha: TEAM, beta: TEAM, gamma: TEAM };
/** An in-process agent that may call any agent: says what it is offered, then asks itself. */
const relay: InProcessAgentDefinition = {
  id: 'relay',
  name: 'Relay',
  description: 'Asks agents.',
  tools: ['agent:*'],
  async *reply({ tools }) {
    yield `offered: ${(await tools!.list()).map((t) => t.name).join(', ')}; `;
    yield (await tools!.call('agent:relay', { message: 'again' })).text;
  },
};
const ALICE = [CHAT_SCOPE, DOCS_SCOPE];

const functionsOf = (entry: UpstreamLogEntry) => entry.body?.tools?.map((t) => t.function.name) ?? [];
const modelOf = (entry: UpstreamLogEntry) => entry.body!.model!.replace(/-model$/, '');
const toolCallsOf = (result: { structuredContent?: unknown }) => (result.structuredContent as { tool_calls: Array<Record<string, unknown>> }).tool_calls;
/** A step of `n` calls to the first agent the model is offered, each passing this same script down. */
const fanOut = (n: number) => Array.from({ length: n }, () => ({ name: '*agent', arguments: '$message' }));

function harness(options: ToolsHarnessOptions) {
  const h = {} as { current: ToolsHarness };
  beforeAll(async () => {
    h.current = await startToolsHarness({ agents: AGENTS, inProcess: [relay], ...options });
  });
  afterAll(() => h.current.close());
  return h;
}

describe('at the default limits', () => {
  const h = harness({});

  test('one tools/call that fans out at every step makes at most AGENT_MAX_UPSTREAM_CALLS model requests, AGENT_MAX_PARALLEL_CALLS at once, and ends with an isError naming the budget', async () => {
    const client = await h.current.connect('legacy', 'alice', ALICE);
    const message = script({ forever: fanOut(16) });
    let notes = 0;
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'alpha', message } },
      { onprogress: () => void notes++, timeout: 60_000 });

    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Agent alpha: this request spent its budget of 64 model calls \(AGENT_MAX_UPSTREAM_CALLS\); the turn was stopped\./);
    const requests = await h.current.upstream.requestsFor(message);
    // Without a budget: 9 + 128·9 + 16,384 = 17,545 requests, 185 at once.
    expect(requests.length).toBeLessThanOrEqual(64);
    expect(Math.max(...requests.map((r) => r.inFlight!))).toBeLessThanOrEqual(8);
    // No agent is offered itself or the agents above it; gamma, third in the chain (AGENT_MAX_DEPTH 3), no agent at all.
    for (const request of requests) {
      const offered = functionsOf(request);
      expect(offered).not.toContain(`agent__${modelOf(request)}`);
      if (modelOf(request) !== 'alpha') expect(offered).not.toContain('agent__alpha');
      if (modelOf(request) === 'gamma') expect(offered).toEqual(['docs__echo']);
    }
    // Tool calls are within AGENT_MAX_TOOL_CALLS_TOTAL, so the reply and the progress notes are too.
    expect(new TextEncoder().encode(textOf(result)).byteLength).toBeLessThan(16 * 1024);
    expect(notes).toBeLessThanOrEqual(128 + 2);
  });

  test('a fan-out within the budget is not mistaken for a leak: the turn\'s signal carries every call it admits without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const client = await h.current.connect('legacy', 'alice', ALICE);
      await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'alpha', message: script({ forever: fanOut(16) }) } }, { timeout: 60_000 });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  test('an agent is never offered itself or an agent above it in its chain, and a call to one is refused, not run', async () => {
    const client = await h.current.connect('modern', 'alice', ALICE);
    const inner = script({ steps: [[{ name: 'agent__alpha', arguments: { message: 'up' } }, { name: 'agent__beta', arguments: { message: 'self' } }]], final: 'inner' });
    const outer = script({ steps: [[{ name: 'agent__beta', arguments: { message: inner } }]], final: 'outer' });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'alpha', message: outer } });

    const [top] = await h.current.upstream.requestsFor(outer);
    expect(functionsOf(top!)).toEqual(['docs__echo', 'agent__beta', 'agent__gamma', 'agent__clerk', 'agent__relay']);
    const nested = await h.current.upstream.requestsFor(inner);
    expect(nested.map(modelOf)).toEqual(['beta', 'beta']);
    expect(functionsOf(nested[0]!)).toEqual(['docs__echo', 'agent__gamma', 'agent__clerk', 'agent__relay']);
    expect(toolCallsOf(result).map((r) => [r.chain, r.name, r.ok])).toEqual([
      ['alpha', 'agent:beta', true],
      ['alpha → beta', 'agent__alpha', false],
      ['alpha → beta', 'agent__beta', false],
    ]);
    expect(await h.current.upstream.requestsFor('up')).toHaveLength(0);
    expect(await h.current.upstream.requestsFor('self')).toHaveLength(0);
  });

  test('an in-process agent asking itself by name is refused, naming the chain', async () => {
    const client = await h.current.connect('modern', 'alice', ALICE);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'relay', message: 'go' } });
    expect(textOf(result)).toBe('offered: agent:alpha, agent:beta, agent:gamma, agent:clerk; '
      + 'Tool agent:relay was refused: agent relay is already in this chain (relay), and an agent never asks itself or an agent that asked it.');
  });
});

/** An in-process agent that does not watch its signal: it takes 10 s whatever happens. */
const sleeper: InProcessAgentDefinition = {
  id: 'sleeper',
  name: 'Sleeper',
  description: 'Takes its time.',
  async *reply() {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    yield 'woke up';
  },
};

describe('with a budget of 6 tool calls and a turn of 3 s', () => {
  const h = harness({ env: { AGENT_MAX_TOOL_CALLS_TOTAL: '6', AGENT_TURN_TIMEOUT_MS: '3000' }, inProcess: [sleeper] });

  test('calls past AGENT_MAX_TOOL_CALLS_TOTAL, nested agents\' included, are answered "not run" and the record names the bound', async () => {
    const client = await h.current.connect('legacy', 'alice', ALICE);
    const calls = h.current.docs.methods.filter((m) => m === 'tools/call').length;
    const inner = script({ steps: [Array.from({ length: 4 }, () => ({ name: 'docs__echo', arguments: { text: 'inner' } }))] });
    const message = script({ steps: [[
      { name: 'agent__beta', arguments: { message: inner } },
      ...Array.from({ length: 4 }, () => ({ name: 'docs__echo', arguments: { text: 'outer' } })),
    ]] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'alpha', message } });

    expect(result.isError).toBeFalsy();
    const records = toolCallsOf(result);
    expect(records).toHaveLength(9);
    expect(records.filter((r) => r.limit === 'AGENT_MAX_TOOL_CALLS_TOTAL')).toHaveLength(3);
    expect(h.current.docs.methods.filter((m) => m === 'tools/call').length - calls).toBe(5);
    expect(textOf(result)).toContain('was not run: this request spent its budget of 6 tool calls (AGENT_MAX_TOOL_CALLS_TOTAL).');
  });

  test('a slow tool loop ends at AGENT_TURN_TIMEOUT_MS with an isError, and the model is asked nothing more', async () => {
    const client = await h.current.connect('legacy', 'alice', ALICE);
    const message = script({ delayMs: 600, forever: [{ name: 'docs__echo', arguments: { text: 'again' } }] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'gamma', message } });

    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Agent gamma: the turn ran longer than AGENT_TURN_TIMEOUT_MS \(3000 ms\) and was stopped\./);
    const asked = (await h.current.upstream.requestsFor(message)).length;
    // AGENT_MAX_TOOL_STEPS (8) would have stopped it at the 9th.
    expect(asked).toBeLessThan(9);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await h.current.upstream.requestsFor(message)).toHaveLength(asked);
  });

  test('an in-process agent that ignores its signal is still answered for at AGENT_TURN_TIMEOUT_MS', async () => {
    const client = await h.current.connect('modern', 'alice', ALICE);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'sleeper', message: 'hurry' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Agent sleeper: the turn ran longer than AGENT_TURN_TIMEOUT_MS (3000 ms) and was stopped.');
  });
});

describe.each(['RATE_LIMIT_PRINCIPAL', 'RATE_LIMIT_IP'])('with %s set', (variable) => {
  // The client's handshake, the call and one more request fit; four nested turns besides do not.
  const h = harness({ env: { [variable]: '4/1h' } });

  test('each nested agent turn is charged to the caller: past the limit it is refused, the record says so, and the next request is 429', async () => {
    const subject = `caller-${crypto.randomUUID()}`;
    const client = await h.current.connect('modern', subject, ALICE);
    const message = script({ steps: [Array.from({ length: 4 }, () => ({ name: 'agent__beta', arguments: { message: 'hello' } }))] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'alpha', message } });

    expect(result.isError).toBeFalsy();
    const refused = toolCallsOf(result).filter((r) => r.limit === variable);
    expect(refused.length).toBeGreaterThan(0);
    expect(textOf(result)).toContain(`Agent beta was not asked: the caller is over its rate limit (${variable})`);
    const token = await h.current.token(subject, ALICE);
    const next = await postModern(h.current.server.mcpUrl, 1, 'tools/list', {}, { headers: { authorization: `Bearer ${token}` } });
    expect(next.status).toBe(429);
  });
});
