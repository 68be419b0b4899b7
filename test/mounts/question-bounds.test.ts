/**
 * A mounted server cannot relay unbounded questions: one forwarded call relays at most the mount's `maxQuestions`
 * to the caller, the rest are refused with a JSON-RPC error the mount sees, and the caller's result says so.
 * Questions still waiting when the call ends stop waiting, and the caller is told they were withdrawn. Real HTTP,
 * the official v2 client as a 2025-11-25 caller, an SDK 1.x server as the mount.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import { startAskingModernMount, type AskingMount } from '../support/asking-mounts.js';
import { CountingStore } from '../support/counting-store.js';
import { startLingeringMount, type LingeringMount } from '../support/hostile-mounts.js';
import { answerElicitation, connectHttp, createV2Client, firstText } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MAX_QUESTIONS = 3;
/** The attack sent 5,000; the SDK mount and client alone take ~25 s for those here, so the test asks 1,000. */
const QUESTIONS = 1_000;
/** callTimeoutMs of a mount whose call ends by timing out while its questions wait. */
const HASTY_MS = 1_500;
let mount: LingeringMount;
let modern: AskingMount;
let mounts: Mounts;
let store: CountingStore;
let server: TestServer;

beforeAll(async () => {
  [mount, modern] = await Promise.all([startLingeringMount(), startAskingModernMount()]);
  mounts = createMounts({ mounts: [
    { name: 'nosy', url: mount.url, maxQuestions: MAX_QUESTIONS },
    { name: 'hasty', url: mount.url, maxQuestions: MAX_QUESTIONS, callTimeoutMs: HASTY_MS },
    // ask_twice asks one question in each of two rounds (MRTR).
    { name: 'rounds', url: modern.url, era: 'auto', maxQuestions: 1 },
  ], waitMs: 10_000 });
  store = new CountingStore();
  const app = createApp({ definitions: [], mounts, store, stateSecret: 'q'.repeat(32), origin: { local: true, allowedOrigins: new Set() } });
  server = await startTestServer(createMcpHandler(app));
  await mounts.waitForConnections();
});

afterAll(async () => {
  await server.close();
  await mounts.close();
  await Promise.all([mount.close(), modern.close()]);
});

describe('questions a mount relays in one call', () => {
  test(`a mount asking ${QUESTIONS} questions at once: the caller is asked at most maxQuestions, the rest are refused, and no wait outlives the call`, { timeout: 60_000 }, async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = createV2Client('legacy', { elicitation: {} });
    // A user who never answers: each question stays open at the client until it is withdrawn.
    const asked: string[] = [];
    const withdrawn: string[] = [];
    client.setRequestHandler('elicitation/create', (request, ctx) => new Promise(() => {
      asked.push(String(request.params.message));
      ctx.mcpReq.signal.addEventListener('abort', () => void withdrawn.push(String(request.params.message)), { once: true });
    }));
    await connectHttp(client, server.mcpUrl);
    store.peak = 0;

    const result = await client.callTool({ name: 'nosy.ask_many', arguments: { count: QUESTIONS } }, { timeout: 60_000 });
    const waitingAtEnd = store.waiting;

    const bound = `Mount nosy asked more than ${MAX_QUESTIONS} questions in one call (its maxQuestions setting); ` +
      `agent-mcp relayed the first ${MAX_QUESTIONS} to the caller and refused the rest.`;
    expect(firstText(result)).toBe(bound);
    expect(asked).toHaveLength(MAX_QUESTIONS);
    expect(mount.asked.refused).toBeGreaterThan(0);
    expect([...mount.asked.messages]).toEqual([`MCP error -32600: ${bound}`]);
    // The call is over: none of its questions is still waited for, here (from the moment it ended) or at the client.
    expect(store.peak).toBeGreaterThanOrEqual(MAX_QUESTIONS);
    expect(waitingAtEnd).toBe(0);
    await vi.waitFor(() => expect(withdrawn).toHaveLength(MAX_QUESTIONS), { timeout: 5_000 });
    expect(warn).toHaveBeenCalledWith("[agent-mcp] refused the questions of 1 forwarded call(s) past their mount's maxQuestions (latest: mount nosy)");
    warn.mockRestore();
    await client.close();
  });

  test(`a call that ends at its callTimeoutMs while its questions wait: every wait ends with the call, not after it`, { timeout: 60_000 }, async () => {
    const client = createV2Client('legacy', { elicitation: {} });
    const asked: string[] = [];
    const withdrawn: string[] = [];
    client.setRequestHandler('elicitation/create', (request, ctx) => new Promise(() => {
      asked.push(String(request.params.message));
      ctx.mcpReq.signal.addEventListener('abort', () => void withdrawn.push(String(request.params.message)), { once: true });
    }));
    await connectHttp(client, server.mcpUrl);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    store.peak = 0;
    const result = await client.callTool({ name: 'hasty.ask_many', arguments: { count: QUESTIONS, hold: true } }, { timeout: 60_000 });
    // Read the moment the result is in: a question still waiting now would read the store at every watch tick.
    const waitingAtEnd = store.waiting;
    warn.mockRestore();
    expect(firstText(result)).toBe(`Mount hasty: no answer within ${HASTY_MS} ms.`);
    expect(asked).toHaveLength(MAX_QUESTIONS);
    expect(store.peak).toBeGreaterThanOrEqual(MAX_QUESTIONS);
    expect(waitingAtEnd).toBe(0);
    await vi.waitFor(() => expect(withdrawn).toHaveLength(MAX_QUESTIONS), { timeout: 5_000 });
    await client.close();
  });

  test('a 2026-07-28 mount whose rounds of questions pass maxQuestions is not retried with some unanswered: the call ends saying why', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = createV2Client('legacy', { elicitation: {} });
    const asked = answerElicitation(client, () => ({ name: 'ada' }));
    await connectHttp(client, server.mcpUrl);
    const result = await client.callTool({ name: 'rounds.ask_twice', arguments: {} });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe('Mount rounds asked more than 1 question in one call (its maxQuestions setting); ' +
      'agent-mcp relayed the first 1 to the caller and refused the rest.');
    expect(asked).toHaveLength(1);
    warn.mockRestore();
    await client.close();
  });
});
