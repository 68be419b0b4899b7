/**
 * `a2a` agents end to end: official MCP SDK clients over HTTP on both wires, agent-mcp behind real bearer auth, and
 * real A2A agents built with the A2A project's JavaScript SDK (test/support/a2a-server.ts): streaming, a multi-turn
 * context, input-required answered by our caller, cancellation, a failed task, and an agent that does not stream.
 */

import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A2A_SECRET, startA2aAgent, type A2aAgent } from '../../support/a2a-server.js';
import { TASKS_EXTENSION } from '../../../lib/protocol/tasks.js';
import { postModern } from '../../support/rpc.js';
import { answerElicitation, connectHttp, createV2Client, type Era } from '../../support/sdk.js';
import { describeAgentFormat } from '../contract/suite.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat, noted, until } from './setup.js';

let agent: A2aAgent;
let blocking: A2aAgent;
let h: ToolsHarness;
beforeAll(async () => {
  [agent, blocking] = await Promise.all([startA2aAgent(), startA2aAgent({ streaming: false })]);
  h = await startToolsHarness({
    agents: {
      helper: { name: 'Helper', format: 'a2a', url: agent.url, apiKeyEnv: 'A2A_KEY' },
      blocking: { name: 'Blocking', format: 'a2a', url: `${blocking.url}/.well-known/agent-card.json` },
    },
    // Every call of a client that declares the tasks extension is a task at once (the SDK clients here do not).
    env: { A2A_KEY: 'a2a-key-0123456789', AGENT_TASK_AFTER_MS: '0', TASK_POLL_INTERVAL_MS: '50' },
  });
});
afterAll(async () => {
  await h.close();
  await Promise.all([agent.close(), blocking.close()]);
});

const ALICE = [CHAT_SCOPE];
const sent = (server: A2aAgent, text: string) => server.requests.filter((r) => r.params?.message?.parts?.[0]?.text === text);

// Isolation and a failed task (the cases this file checked itself before) are the contract's; its cancel is checked
// here too, with the one CancelTask it sends and a task named late.
describeAgentFormat('a2a', {
  progress: 'streams',
  usage: { unknown: 'A2A has no standard place for token usage' },
  async start() {
    const a2a = await startA2aAgent();
    return {
      settings: { url: a2a.url },
      says: {
        // The agent keeps the conversation: the A2A context agent-mcp continues counts its turns.
        reply: (message, turn) => `A2A echo: ${message} (turn ${turn} of this context)`,
        streamed: (marker) => `pace ${marker}`,
        long: (marker) => `slow ${marker}`,
        serverError: 'fault:secrets',
        errorInReply: { message: 'fail', secret: A2A_SECRET },
        huge: (bytes) => `fault:huge ${bytes}`,
      },
      received: async (text) => sent(a2a, text).length > 0,
      aborted: async (text) => a2a.cancelledFor(text),
      close: () => a2a.close(),
    };
  },
});

/** A caller whose client answers elicitations with `answer` (or declares no elicitation at all). */
async function caller(era: Era, subject: string, answer?: string) {
  const capabilities: ClientCapabilities = answer === undefined ? {} : { elicitation: {} };
  const client = createV2Client(era, capabilities);
  const asked = answer === undefined ? [] : answerElicitation(client, () => ({ answer }));
  await connectHttp(client, h.server.mcpUrl, { authorization: `Bearer ${await h.token(subject, ALICE)}` });
  return { client, asked };
}

describe.each(['legacy', 'modern'] as const)('an a2a agent on the %s wire', (era) => {
  test('two turns in one A2A context: artifacts stream as the reply, status messages and artifacts are progress lines', async () => {
    const { client } = await caller(era, 'alice');
    const reads = agent.cardReads();
    const first = await chat(client, 'helper', `hello on ${era}`);
    expect(first.result.isError).toBeFalsy();
    expect(first.text).toBe(`A2A echo: hello on ${era} (turn 1 of this context)`);
    expect(noted(first.progress, `helper: Thinking about "hello on ${era}"`) || noted(first.progress, 'helper: artifact "answer"')).toBe(true);

    const second = await chat(client, 'helper', `again on ${era}`, first.sessionId);
    expect(second.text).toBe(`A2A echo: again on ${era} (turn 2 of this context)`);
    const [opening] = sent(agent, `hello on ${era}`);
    const [request] = sent(agent, `again on ${era}`);
    expect(opening).toMatchObject({ method: 'SendStreamingMessage', version: '1.0', authorization: 'Bearer a2a-key-0123456789' });
    expect(opening!.params.message.contextId).toBeUndefined();
    // The context the agent opened is continued, and it is the agent's id, never the client's session_id.
    expect(request!.params.message.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(request!.params.message.contextId).not.toBe(first.sessionId);
    // The card is read once and kept.
    expect(agent.cardReads()).toBeLessThanOrEqual(Math.max(reads, 1));
  });

  test('input-required becomes a question to the caller, and the answer goes back to the waiting task', async () => {
    const { client, asked } = await caller(era, 'alice', `Ada on ${era}`);
    const { text, result } = await chat(client, 'helper', `ask on ${era}`);
    expect(result.isError).toBeFalsy();
    // The test agent greets by name only when the answer reaches the task that asked.
    expect(text).toBe(`Hello, Ada on ${era}!`);
    expect(asked).toMatchObject([{ message: 'Helper asks: What is your name?' }]);
    // The message is sent once (a 2026-07-28 retry carrying the answer does not start a second task) and the answer
    // names the waiting task and its context.
    expect(sent(agent, `ask on ${era}`)).toHaveLength(1);
    const [answer] = sent(agent, `Ada on ${era}`);
    expect(answer!.params.message).toMatchObject({ taskId: expect.stringMatching(/^[0-9a-f-]{36}$/), contextId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  test('a caller that cannot answer gets an isError naming the capability, and the waiting task is cancelled', async () => {
    const { client } = await caller(era, 'alice');
    const cancelled = agent.cancelled.size;
    const { text, result } = await chat(client, 'helper', `ask nobody on ${era}`);
    expect(result.isError).toBe(true);
    expect(text).toMatch(/did not declare the elicitation capability/);
    await until(() => agent.cancelled.size > cancelled);
  });
});

/** Starts a chat call whose message is `<kind> <marker>`, aborts it once the agent's executor has the task, and returns its id. */
async function cancelOnceStarted(kind: 'slow' | 'late'): Promise<string> {
  const { client } = await caller('legacy', 'alice');
  const marker = crypto.randomUUID();
  const started = agent.working(marker);
  const controller = new AbortController();
  const call = client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'helper', message: `${kind} ${marker}` } }, { signal: controller.signal })
    .then(() => 'answered', () => 'aborted');
  const taskId = await started;
  controller.abort();
  expect(await call).toBe('aborted');
  return taskId;
}

const cancelTasksFor = (taskId: string) => agent.requests.filter((r) => r.method === 'CancelTask' && r.params.id === taskId);

describe('cancellation and failures', () => {
  test('a cancelled call cancels the A2A task it started (CancelTask)', async () => {
    const taskId = await cancelOnceStarted('slow');
    await until(() => agent.cancelled.has(taskId));
    expect(cancelTasksFor(taskId)).toHaveLength(1);
  });

  test('a call cancelled before the upstream named its task still cancels that task, once it is named', async () => {
    // The upstream has the request and its executor runs, but for LATE_MS no event names the task.
    const taskId = await cancelOnceStarted('late');
    expect(agent.cancelled.has(taskId)).toBe(false);
    await until(() => agent.cancelled.has(taskId));
    expect(cancelTasksFor(taskId)).toHaveLength(1);
  });

  test('an agent whose card does not declare streaming is asked with SendMessage, and its task\'s artifacts are the reply', async () => {
    const { client } = await caller('modern', 'alice');
    const first = await chat(client, 'blocking', 'hello, blocking');
    expect(first.text).toBe('A2A echo: hello, blocking (turn 1 of this context)');
    const second = await chat(client, 'blocking', 'and again', first.sessionId);
    expect(second.text).toBe('A2A echo: and again (turn 2 of this context)');
    expect(blocking.requests.map((r) => r.method)).toEqual(['SendMessage', 'SendMessage']);
    expect(blocking.cardReads()).toBe(1);
  });
});

describe('an A2A task as an MCP task (2026-07-28 tasks extension)', () => {
  test('the call becomes a task; the A2A question is the task\'s input request, and the answer given with tasks/update completes it', async () => {
    const authorization = `Bearer ${await h.token('alice', ALICE)}`;
    const capabilities = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
    const send = async (id: number, method: string, params: Record<string, unknown>) =>
      (await (await postModern(h.server.mcpUrl, id, method, params, { capabilities, headers: { authorization, ...(params.taskId ? { 'mcp-name': String(params.taskId) } : {}) } })).json()).result;
    const state = async (taskId: string, status: string) => {
      for (let id = 100; ; id++) {
        const result = await send(id, 'tasks/get', { taskId });
        if (result.status === status) return result;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const created = await send(1, 'tools/call', { name: 'chat_with_agent', arguments: { agent_id: 'helper', message: 'ask in a task' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const asking = await state(created.taskId, 'input_required');
    const [key] = Object.keys(asking.inputRequests);
    expect(asking.inputRequests[key!]).toMatchObject({ method: 'elicitation/create', params: { message: 'Helper asks: What is your name?' } });
    await send(2, 'tasks/update', { taskId: created.taskId, inputResponses: { [key!]: { action: 'accept', content: { answer: 'Grace' } } } });
    const done = await state(created.taskId, 'completed');
    expect(JSON.stringify(done)).toContain('Hello, Grace!');
    expect(sent(agent, 'ask in a task')).toHaveLength(1);
  });
});
