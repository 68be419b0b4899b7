/**
 * Agents that use the team's tools, end to end: official SDK clients over HTTP on loopback with real tokens,
 * agent-mcp, a scripted OpenAI-compatible fake model in its own process, and a real SDK server mounted as `docs`.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { textOf } from './setup.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from './tools-setup.js';

let h: ToolsHarness;
beforeAll(async () => {
  h = await startToolsHarness();
});
afterAll(() => h.close());

const ALICE = [CHAT_SCOPE, DOCS_SCOPE];
const functionsOf = (entry: { body?: { tools?: Array<{ function: { name: string } }> } }) => entry.body?.tools?.map((t) => t.function.name);
const toolCallsOf = (result: { structuredContent?: unknown }) => (result.structuredContent as { tool_calls: unknown[] }).tool_calls;
const docsCalls = () => h.docs.methods.filter((m) => m === 'tools/call').length;

describe.each(['legacy', 'modern'] as const)('an agent with tools, on the %s wire (scripted fake model)', (era) => {
  test('parallel tool calls streamed as deltas run as the caller, a failing tool goes back to the model, and the caller sees each step', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const message = script({
      steps: [[
        { name: 'docs__echo', arguments: { text: 'one' } },
        { name: 'docs__weather', arguments: { city: 'Paris' } },
        { name: 'docs__fail' },
      ]],
      final: 'answered',
    });
    const progress: string[] = [];
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message } },
      { onprogress: (p) => void progress.push(p.message ?? '') });

    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('research-model: answered [docs: one | Paris: 21 C | the downstream tool failed on purpose]');
    // In the order the model asked for them, though they ran in parallel.
    expect(toolCallsOf(result)).toEqual([
      { chain: 'research', name: 'docs.echo', arguments: '{"text":"one"}', ok: true },
      { chain: 'research', name: 'docs.weather', arguments: '{"city":"Paris"}', ok: true },
      { chain: 'research', name: 'docs.fail', arguments: '{}', ok: false },
    ]);
    // Each step is a note; notes closer together than 100 ms come as one, the latest named and the others counted.
    const steps = progress.map((m) => /^research: calling (\S+)…(?: \(and (\d+) more\))?$/.exec(m)).filter((m) => m !== null);
    expect(steps.reduce((n, m) => n + 1 + Number(m[2] ?? 0), 0)).toBe(3);
    expect(steps.at(-1)![1]).toBe('docs.fail');

    const [first, second] = await h.upstream.requestsFor(message);
    // The tools go up as OpenAI functions with their published schemas; paid and unnamed tools do not.
    expect(functionsOf(first!)).toEqual(expect.arrayContaining(['docs__echo', 'docs__weather', 'docs__fail', 'agent__writer']));
    expect(functionsOf(first!)).not.toContain('premium');
    expect(functionsOf(first!)).not.toContain('chat_with_agent');
    expect(first!.body!.tools!.find((t) => t.function.name === 'docs__echo')!.function.parameters).toMatchObject({ properties: { text: { type: 'string' } } });
    // The assistant's calls and one tool message per call, answered by id.
    const [assistant, ...tools] = second!.body!.messages!.slice(-4);
    expect(assistant!.tool_calls!.map((c) => c.id)).toEqual(['call_0_0', 'call_0_1', 'call_0_2']);
    expect(tools.map((m) => [m.role, m.tool_call_id])).toEqual([['tool', 'call_0_0'], ['tool', 'call_0_1'], ['tool', 'call_0_2']]);
  });

  test('history keeps the user message and the final reply, not the tool messages', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const opening = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'kept?' } }]] });
    const first = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message: opening } });
    const session_id = (first.structuredContent as { session_id: string }).session_id;
    const next = script({ final: 'second' });
    await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message: next, session_id } });
    const [request] = await h.upstream.requestsFor(next);
    expect(request!.body!.messages!.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(request!.body!.messages![1]!.content).toBe('research-model: done [docs: kept?]');
  });
});

describe('tool errors go back to the model', () => {
  test('arguments that are not JSON are answered as a tool result, and the turn goes on', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const calls = docsCalls();
    const message = script({ steps: [[{ name: 'docs__echo', arguments: '{"text": nope' }]] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('research-model: done [Tool docs.echo was not called: its arguments must be a JSON object, and this is not valid JSON.]');
    expect(toolCallsOf(result)).toEqual([{ chain: 'research', name: 'docs.echo', arguments: '{"text": nope', ok: false }]);
    expect(docsCalls()).toBe(calls);
  });
});

describe('the caller\'s scopes bound the agent', () => {
  test('a caller without a mount\'s scope cannot make the agent see or call its tools', async () => {
    const client = await h.connect('legacy', 'bob', [CHAT_SCOPE]);
    const calls = docsCalls();
    const message = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'sneaky' } }]] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message } });
    expect(textOf(result)).toBe('research-model: done [Tool docs__echo is not one of the tools you may use.]');
    const [first] = await h.upstream.requestsFor(message);
    expect(functionsOf(first!)).toEqual(['agent__writer']);
    expect(docsCalls()).toBe(calls);
  });

  test('an agent offered no tool at all sends the request a tool-less agent sends', async () => {
    const client = await h.connect('legacy', 'bob', [CHAT_SCOPE]);
    const message = script({ final: 'plain' });
    await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'writer', message } });
    const [request] = await h.upstream.requestsFor(message);
    expect(Object.keys(request!.body!)).toEqual(['model', 'messages', 'stream', 'stream_options']);
  });
});

describe('paid tools', () => {
  test('a paid tool is never offered to the model, and a call to it is refused without running it', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const message = script({ steps: [[{ name: 'premium' }]] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message } });
    expect(textOf(result)).toBe("research-model: done [Tool premium was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf.]");
    expect(toolCallsOf(result)).toEqual([{ chain: 'research', name: 'premium', arguments: '{}', ok: false }]);
    expect(h.premiumRuns()).toBe(0);
  });
});

describe('bounds', () => {
  test('a fake model that never stops asking for tools ends the turn at the step limit with an isError naming it', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const calls = docsCalls();
    const message = script({ forever: [{ name: 'docs__echo', arguments: { text: 'again' } }] });
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'stepper', message } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Agent stepper asked for tools 2 times without answering (AGENT_MAX_TOOL_STEPS is 2); the turn was stopped. '
      + 'Tool calls made: stepper: docs.echo (ok), stepper: docs.echo (ok).');
    expect(await h.upstream.requestsFor(message)).toHaveLength(3);
    expect(docsCalls() - calls).toBe(2);
  });

  test('two agents that name each other: the one asked is not offered the one that asked it, and the chain is visible', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const message = script({ steps: [[{ name: '*agent', arguments: '$message' }]] });
    const progress: string[] = [];
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'ping', message } },
      { onprogress: (p) => void progress.push(p.message ?? '') });
    expect(textOf(result)).toBe('ping-model: done [pong-model: done]');
    const args = JSON.stringify({ message });
    expect(toolCallsOf(result)).toEqual([
      { chain: 'ping', name: 'agent:pong', arguments: args.length > 200 ? `${args.slice(0, 199)}…` : args, ok: true },
    ]);
    expect(progress).toContain('ping: calling agent:pong…');
    // pong, asked by ping, is offered no agent: ping is already in its chain.
    const requests = await h.upstream.requestsFor(message);
    expect(requests.map((r) => [r.body!.model, functionsOf(r)])).toEqual([
      ['ping-model', ['agent__pong']],
      ['pong-model', undefined],
      ['ping-model', ['agent__pong']],
    ]);
  });
});

describe('an in-process agent', () => {
  test('uses the tools it names through turn.tools, as its caller, its calls listed for the caller', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'clerk', message: 'file this' } });
    expect(textOf(result)).toBe('may use: docs.echo; ok: docs: file this');
    expect(toolCallsOf(result)).toEqual([{ chain: 'clerk', name: 'docs.echo', arguments: '{"text":"file this"}', ok: true }]);
    const bob = await h.connect('modern', 'bob', [CHAT_SCOPE]);
    expect(textOf(await bob.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'clerk', message: 'file this' } })))
      .toBe('may use: ; failed: Tool docs.echo is not one of the tools you may use.');
  });
});

describe('cancellation', () => {
  test('cancelling the call mid-loop cancels the tool in flight and asks the model nothing more', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const key = crypto.randomUUID();
    const message = script({ steps: [[{ name: 'docs__wait', arguments: { key } }]] });
    const controller = new AbortController();
    const call = client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'research', message } }, { signal: controller.signal })
      .then(() => 'answered', () => 'aborted');
    await h.docs.waiting(key);
    controller.abort();
    expect(await call).toBe('aborted');
    await h.docs.cancelled(key);
    // A later call's request reaches the model after anything the cancelled loop could still have sent.
    const later = script({ final: 'later' });
    await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'plain', message: later } });
    expect(await h.upstream.requestsFor(message)).toHaveLength(1);
  });
});
