/**
 * A real A2A agent for tests (test-only), built with the A2A project's JavaScript SDK (@a2a-js/sdk: its
 * DefaultRequestHandler, task store and Express handlers for the agent card and JSON-RPC), speaking A2A 1.0.
 * The message's text picks what the agent does:
 *   "ask …" the task turns input-required asking for a name; the answer (a message to that task) completes it ·
 *   "slow …" works for up to 20 s, checking for cancellation every 20 ms (then its task is canceled) ·
 *   "late …" works as "slow …" does, but names its task only LATE_MS after it starts (`working` resolves at the start) ·
 *   "fail" the task fails with a status message holding a secret · "pace …" as anything else, its artifact's chunks
 *   150 ms apart · "fault:huge <bytes>" an artifact of that many bytes · "fault:secrets" HTTP 500 (before the SDK's
 *   handler) holding the key it was sent and upstream.ts's secretsText · anything else: a working status naming the
 *   message, then the reply as an artifact streamed in three appended chunks, "A2A echo: <text> (turn N of this context)".
 * It records every JSON-RPC request (method, params, authorization, A2A-Version) and every task it saw cancelled.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { secretsText } from './upstream.js';

export const A2A_SECRET = 'a2a-internal-secret-http://10.0.0.7/admin';

export interface A2aRequest {
  method: string;
  params: any;
  authorization?: string;
  version?: string;
}

export interface A2aAgent {
  /** The base URL (the card is at <url>/.well-known/agent-card.json). */
  url: string;
  requests: A2aRequest[];
  /** How many times the card was read. */
  cardReads(): number;
  /** Task ids a CancelTask reached. */
  cancelled: Set<string>;
  /** True once a CancelTask reached a task the message `text` started. */
  cancelledFor(text: string): boolean;
  /** Resolves once a "slow" task for a message containing `marker` is working (a "late" one: once it starts). */
  working(marker: string): Promise<string>;
  close(): Promise<void>;
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const textOf = (message: Message | undefined) => message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';
const agentMessage = (taskId: string, contextId: string, value: string): Message => ({
  role: Role.ROLE_AGENT, messageId: crypto.randomUUID(), parts: [text(value)], taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [],
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a "late" task runs before the agent publishes it, so a caller can be gone before it is named. */
export const LATE_MS = 1000;

class TestExecutor implements AgentExecutor {
  readonly cancelled = new Set<string>();
  /** The text of the message that started each task. */
  readonly texts = new Map<string, string>();
  readonly turns = new Map<string, number>();
  readonly waiters = new Map<string, (taskId: string) => void>();

  cancelTask = async (taskId: string): Promise<void> => {
    this.cancelled.add(taskId);
  };

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const message = textOf(userMessage);
    if (!request.task) this.texts.set(taskId, message);
    const status = (state: TaskState, said?: string) => bus.publish(AgentEvent.statusUpdate({
      taskId, contextId, status: { state, message: said === undefined ? undefined : agentMessage(taskId, contextId, said), timestamp: new Date().toISOString() }, metadata: {},
    }));
    const late = message.startsWith('late');
    if (late) {
      for (const [marker, resolve] of this.waiters) if (message.includes(marker)) resolve(taskId);
      await sleep(LATE_MS);
    }
    const task: Task = request.task ?? {
      id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [], history: [userMessage], metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    // An answer to the question of a task waiting for input.
    if (request.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING, 'Got your answer');
      this.artifact(bus, taskId, contextId, [`Hello, ${message}!`]);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    const turn = (this.turns.get(contextId) ?? 0) + 1;
    this.turns.set(contextId, turn);
    if (message.startsWith('ask')) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, 'What is your name?');
      return;
    }
    if (message === 'fail') {
      status(TaskState.TASK_STATE_FAILED, `Database down: ${A2A_SECRET}`);
      return;
    }
    status(TaskState.TASK_STATE_WORKING, `Thinking about "${message}"`);
    if (message.startsWith('slow') || late) {
      for (const [marker, resolve] of this.waiters) if (message.includes(marker)) resolve(taskId);
      for (let waited = 0; waited < 20_000 && !this.cancelled.has(taskId); waited += 20) await sleep(20);
      status(this.cancelled.has(taskId) ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_COMPLETED);
      return;
    }
    if (message.startsWith('fault:huge ')) {
      this.artifact(bus, taskId, contextId, 'x'.repeat(Number(message.split(' ')[1])).match(/.{1,1000}/gs)!);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    const reply = `A2A echo: ${message} (turn ${turn} of this context)`;
    if (message.startsWith('pace')) {
      await this.artifact(bus, taskId, contextId, reply.match(/.{1,8}/gs)!, 150);
    } else {
      const third = Math.ceil(reply.length / 3);
      this.artifact(bus, taskId, contextId, [reply.slice(0, third), reply.slice(third, 2 * third), reply.slice(2 * third)]);
    }
    status(TaskState.TASK_STATE_COMPLETED);
  }

  /** Publishes an artifact in `chunks`, `gapMs` apart (all at once without). */
  async artifact(bus: ExecutionEventBus, taskId: string, contextId: string, chunks: string[], gapMs?: number) {
    const artifactId = crypto.randomUUID();
    for (const [i, chunk] of chunks.entries()) {
      if (gapMs && i > 0) await sleep(gapMs);
      bus.publish(AgentEvent.artifactUpdate({
        taskId, contextId, append: i > 0, lastChunk: i === chunks.length - 1, metadata: undefined,
        artifact: { artifactId, name: 'answer', description: '', parts: [text(chunk)], metadata: undefined, extensions: [] },
      }));
    }
  }
}

/** `interfaceAt`: the base URL the card names for the JSON-RPC interface (another server's, for a card that points elsewhere); ours by default. */
export async function startA2aAgent(options: { streaming?: boolean; interfaceAt?: string } = {}): Promise<A2aAgent> {
  const executor = new TestExecutor();
  const requests: A2aRequest[] = [];
  let cardReads = 0;
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'Test A2A agent', description: 'Echoes, asks, works slowly or fails, as its messages say.',
    supportedInterfaces: [{ url: `${options.interfaceAt ?? url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined, version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text'], defaultOutputModes: ['text'], skills: [], signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, (_req, _res, next) => { cardReads += 1; next(); }, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a', express.json(), (req, res, next) => {
    requests.push({ method: req.body?.method, params: req.body?.params, authorization: req.headers.authorization, version: req.headers['a2a-version'] as string | undefined });
    if (req.body?.params?.message?.parts?.[0]?.text !== 'fault:secrets') return next();
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: secretsText(String(req.headers.authorization ?? '').replace(/^Bearer /, '')).text }));
  }, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    requests,
    cardReads: () => cardReads,
    cancelled: executor.cancelled,
    cancelledFor: (text) => [...executor.cancelled].some((taskId) => executor.texts.get(taskId) === text),
    working: (marker) => new Promise((resolve) => void executor.waiters.set(marker, resolve)),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
