/**
 * Token budgets (docs/rate-limits.md "Token budgets") on one instance, over real HTTP with the official client: a
 * caller's budget is checked before a chat call runs and refused with when to try again, charged with the input and
 * output tokens the call's agents report as they arrive, and a call that crosses it mid-way starts no further model
 * request. An API key's own `tokens=`, an agent's `tokenBudget` and the deployment's cap are budgets too. The same
 * budgets across processes sharing one redis are test/multi-instance/token-budgets.test.ts.
 */

import { afterEach, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { metered } from '../../lib/agent/budget.js';
import type { InProcessAgentDefinition } from '../../lib/agent/index.js';
import { createDefaultApp } from '../../lib/app.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { RETRY_AFTER_META } from '../../lib/protocol/errors.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { bearer, keyLine, mintTestKey } from '../support/api-keys.js';
import { createMeteredAgent, type MeteredAgent } from '../support/metered-agent.js';
import { connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';

const DAY = 86_400;
let close: (() => Promise<void> | void) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The deployment's app from `env` (createDefaultApp, as deployed) serving `agents`, on loopback. */
async function start(env: Record<string, string>, ...agents: Array<MeteredAgent | InProcessAgentDefinition>): Promise<string> {
  const app = createDefaultApp({ MCP_LOG: 'off', ...env }, { agents: agents.map((a) => ('definition' in a ? a.definition : a)) });
  const local = await startLocalServer({ port: 0, functions: { '/api/mcp': createMcpHandler(app) } });
  close = () => local.close();
  return `${local.url}/mcp`;
}

async function client(url: string, era: Era = 'modern', headers?: Record<string, string>) {
  const c = createV2Client(era);
  await connectHttp(c, url, headers);
  return c;
}

const chat = (message: string, agent_id?: string) => ({ name: 'chat_with_agent', arguments: { message, ...(agent_id ? { agent_id } : {}) } });

describe('a caller\'s token budget (TOKEN_BUDGET_CALLER)', () => {
  test.each(['modern', 'legacy'] as const)('on the %s wire: three calls spend 10,200 of 10,000 tokens a day; the fourth is an isError result saying when to try again, and its agent never runs', async (era) => {
    const agent = createMeteredAgent();
    const url = await start({ TOKEN_BUDGET_CALLER: '10000/1d' }, agent);
    const alice = await client(url, era);
    for (let i = 0; i < 3; i++) {
      const result = await alice.callTool(chat('2x1200+500'));
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('2 model requests: 2400 input and 1000 output tokens');
    }
    const refused = await alice.callTool(chat('1x10+10'));
    expect(refused.isError).toBe(true);
    const retryAfter = refused._meta?.[RETRY_AFTER_META] as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(2 * DAY);
    expect(firstText(refused)).toBe(`Token budget spent: this caller may spend 10000 tokens every day (TOKEN_BUDGET_CALLER). Retry after ${retryAfter} s.`);
    expect(agent.started).toBe(6);
  });

  test('a call that crosses the budget mid-way starts no further model request: its turn ends with an isError naming the budget and _meta.retryAfterSeconds', async () => {
    const agent = createMeteredAgent();
    const url = await start({ TOKEN_BUDGET_CALLER: '10000/1d' }, agent);
    const bob = await client(url);
    const result = await bob.callTool(chat('10x1000+500'));
    expect(result.isError).toBe(true);
    // 7 requests spend 10,500: the 7th crosses the budget, and the 8th is never started.
    expect(agent.started).toBe(7);
    const retryAfter = result._meta?.[RETRY_AFTER_META] as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(2 * DAY);
    expect(firstText(result)).toBe(`Agent metered: Token budget spent: this caller may spend 10000 tokens every day (TOKEN_BUDGET_CALLER); the turn was stopped. Retry after ${retryAfter} s.`);
  });

  test('a call that crosses the budget mid-way runs no further tool step: the agent it would ask is answered "not run"', async () => {
    const helper = createMeteredAgent('helper');
    const boss: InProcessAgentDefinition = {
      id: 'boss', name: 'Boss', description: 'Spends, then asks its helper.', tools: ['agent:helper'],
      async *reply(turn) {
        yield* metered(turn.modelCalls, 'boss', async function* () {
          turn.usage!.record({ input: 9_000, output: 2_000 });
        });
        const outcome = await turn.tools!.call('agent:helper', { message: '1x10+10' });
        yield `${outcome.ok ? 'ran' : 'not run'}: ${outcome.text}`;
      },
    };
    const url = await start({ TOKEN_BUDGET_CALLER: '10000/1d' }, boss, helper);
    const erin = await client(url);
    const result = await erin.callTool(chat('go', 'boss'));
    expect(firstText(result)).toMatch(/^not run: Tool agent:helper was not run: Token budget spent: this caller may spend 10000 tokens every day \(TOKEN_BUDGET_CALLER\); the turn was stopped\. Retry after \d+ s\.$/);
    expect(result.structuredContent).toMatchObject({ tool_calls: [{ name: 'agent:helper', ok: false, limit: 'TOKEN_BUDGET_CALLER' }] });
    expect(helper.started).toBe(0);
  });

  test('each caller (here each API key\'s principal) has a budget of its own', async () => {
    const agent = createMeteredAgent();
    const keys = [mintTestKey(), mintTestKey()];
    const url = await start({ TOKEN_BUDGET_CALLER: '1000/1h', MCP_API_KEYS: keys.map((k, i) => keyLine(`k${i}`, k)).join('\n') }, agent);
    const [a, b] = [await client(url, 'modern', bearer(keys[0]!)), await client(url, 'modern', bearer(keys[1]!))];
    expect((await a.callTool(chat('1x800+200'))).isError).toBeFalsy();
    expect(firstText(await a.callTool(chat('1x1+1')))).toMatch(/^Token budget spent: this caller may spend 1000 tokens every hour/);
    expect((await b.callTool(chat('1x800+100'))).isError).toBeFalsy();
  });

  test('a model request whose usage is unknown is charged nothing, and the reply says it was unknown', async () => {
    const agent = createMeteredAgent();
    const url = await start({ TOKEN_BUDGET_CALLER: '100/1h' }, agent);
    const carol = await client(url);
    for (let i = 0; i < 3; i++) expect(firstText(await carol.callTool(chat('2xunknown')))).toBe('2 model requests: 0 input and 0 output tokens, 2 unknown');
  });
});

describe('budgets of their own', () => {
  test('an API key\'s tokens= replaces TOKEN_BUDGET_CALLER for that key, and its refusal names MCP_API_KEYS', async () => {
    const agent = createMeteredAgent();
    const [small, plain] = [mintTestKey(), mintTestKey()];
    const url = await start({
      TOKEN_BUDGET_CALLER: '100000/1d',
      MCP_API_KEYS: [keyLine('small', small, 'tokens=2000/1h'), keyLine('plain', plain)].join('\n'),
    }, agent);
    const s = await client(url, 'legacy', bearer(small));
    expect((await s.callTool(chat('1x1500+500'))).isError).toBeFalsy();
    expect(firstText(await s.callTool(chat('1x1+1')))).toMatch(/^Token budget spent: this API key may spend 2000 tokens every hour \(MCP_API_KEYS\)\. Retry after \d+ s\.$/);
    const p = await client(url, 'legacy', bearer(plain));
    expect((await p.callTool(chat('2x1500+500'))).isError).toBeFalsy();
  });

  test('an agent\'s tokenBudget is each caller\'s with that agent: spent with one agent, the caller may still ask another', async () => {
    const pricey = createMeteredAgent('pricey', { tokenBudget: '3000/1d' });
    const cheap = createMeteredAgent('cheap');
    const url = await start({}, pricey, cheap);
    const dave = await client(url);
    expect((await dave.callTool(chat('1x2500+500', 'pricey'))).isError).toBeFalsy();
    expect(firstText(await dave.callTool(chat('1x1+1', 'pricey'))))
      .toMatch(/^Token budget spent: this caller may spend 3000 tokens with agent pricey every day \(tokenBudget of agent pricey\)\. Retry after \d+ s\.$/);
    expect((await dave.callTool(chat('1x2500+500', 'cheap'))).isError).toBeFalsy();
    expect(pricey.started).toBe(1);
  });

  test('the deployment\'s cap (TOKEN_BUDGET_DEPLOYMENT) is one budget for every caller together', async () => {
    const agent = createMeteredAgent();
    const keys = [mintTestKey(), mintTestKey()];
    const url = await start({ TOKEN_BUDGET_DEPLOYMENT: '5000/1d', MCP_API_KEYS: keys.map((k, i) => keyLine(`k${i}`, k)).join('\n') }, agent);
    const a = await client(url, 'modern', bearer(keys[0]!));
    const b = await client(url, 'modern', bearer(keys[1]!));
    expect((await a.callTool(chat('1x2000+500'))).isError).toBeFalsy();
    expect((await b.callTool(chat('1x2000+500'))).isError).toBeFalsy();
    for (const c of [a, b]) {
      expect(firstText(await c.callTool(chat('1x1+1'))))
        .toMatch(/^Token budget spent: this server may spend 5000 tokens for all its callers every day \(TOKEN_BUDGET_DEPLOYMENT\)\. Retry after \d+ s\.$/);
    }
  });
});

describe('token budgets at start-up', () => {
  test.each([
    [{ TOKEN_BUDGET_CALLER: 'lots' }, 'TOKEN_BUDGET_CALLER must look like 100000/1d (tokens per window; s, m, h or d) or off, got "lots".'],
    [{ TOKEN_BUDGET_DEPLOYMENT: '5000000 a day' }, 'TOKEN_BUDGET_DEPLOYMENT must look like 100000/1d'],
    [{ TOKEN_BUDGET_CALLER: '0/1d' }, 'TOKEN_BUDGET_CALLER must look like 100000/1d'],
  ])('%j stops start-up naming the variable', (env, message) => {
    expect(() => createLimitsFromEnv(env, undefined)).toThrow(TypeError);
    expect(() => createLimitsFromEnv(env, undefined)).toThrow(message);
  });

  test('an agent\'s tokenBudget that does not parse stops start-up naming the agent', () => {
    const agents = JSON.stringify([{ id: 'w', url: 'https://agents.example/v1/chat/completions', tokenBudget: 'plenty' }]);
    expect(() => createDefaultApp({ AGENTS: agents })).toThrow('AGENTS is invalid: agent w (entry 0): tokenBudget: must be a token budget such as 100000/1d');
    const inProcess = { ...createMeteredAgent().definition, tokenBudget: '10/week' };
    expect(() => createDefaultApp({}, { agents: [inProcess] })).toThrow('in-process agent metered tokenBudget must look like 100000/1d');
  });

  test('the start-up line says each budget and where it is counted', () => {
    const limits = createLimitsFromEnv({ TOKEN_BUDGET_CALLER: '100000/1d', TOKEN_BUDGET_DEPLOYMENT: 'off' }, undefined)!;
    expect(limits.summary).toBe('rate limits: ip off, principal off, tokens caller 100000/1d, deployment off (counted per instance in memory; on a Redis fault: fail open)');
    expect(limits.tokensFor).toBeDefined();
    expect(createLimitsFromEnv({ RATE_LIMIT_IP: '5/1m' }, undefined)!.tokensFor).toBeUndefined();
  });
});
