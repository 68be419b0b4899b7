/**
 * Limits per tool (RATE_LIMIT_TOOLS, docs/rate-limits.md "Limits per tool") on one instance (memory limiter), over
 * real HTTP with official clients holding real tokens: each caller has its own budget per pattern, the tool calls
 * an agent makes for a caller spend from that caller's budget, a refusal is an isError result saying when to try
 * again, and a 2026-07-28 call of several rounds counts once. The same limit across processes sharing Upstash is
 * test/multi-instance/tool-limits.test.ts.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions, type InProcessAgent } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { MAX_TOOL_PATTERNS } from '../../lib/limits/tools.js';
import { RETRY_AFTER_META } from '../../lib/protocol/errors.js';
import { textOf } from '../agent/setup.js';
import { CHAT_SCOPE, DOCS_SCOPE, startToolsHarness, type ToolsHarness } from '../agent/tools-setup.js';
import { postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SCOPES = [CHAT_SCOPE, DOCS_SCOPE];
const echo = (text: string) => ({ name: 'docs.echo', arguments: { text } });
const clerk = (message: string) => ({ name: 'chat_with_agent', arguments: { agent_id: 'clerk', message } });

describe('a limit on the tools a pattern matches', () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ env: { RATE_LIMIT_TOOLS: JSON.stringify({ 'docs.*': '2/1h', premium: 'off' }) } });
  });
  afterAll(() => h?.close());

  test.each(['legacy', 'modern'] as const)('on the %s wire each caller has its own budget; past it the call is an isError result with retryAfterSeconds, and the tool stays listed', async (era) => {
    const alice = await h.connect(era, `alice-${era}`, SCOPES);
    const before = h.docs.methods.filter((m) => m === 'tools/call').length;
    expect((await alice.callTool(echo('one'))).isError).toBeFalsy();
    expect((await alice.callTool({ name: 'docs.count', arguments: { n: 1 } })).isError).toBeFalsy();
    const refused = await alice.callTool(echo('three'));
    expect(refused.isError).toBe(true);
    const retryAfter = refused._meta?.[RETRY_AFTER_META] as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(textOf(refused)).toBe(`Rate limit exceeded: at most 2 calls of tools matching docs.* per caller every hour. Retry after ${retryAfter} s.`);
    // The refused call never reached the mounted server.
    expect(h.docs.methods.filter((m) => m === 'tools/call').length - before).toBe(2);
    expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['docs.echo', 'docs.count']));

    const bob = await h.connect(era, `bob-${era}`, SCOPES);
    expect((await bob.callTool(echo('mine'))).isError).toBeFalsy();
  });

  test('the tool calls an agent makes for a caller spend from that caller\'s budget, and are refused past it', async () => {
    const carol = await h.connect('modern', 'carol', SCOPES);
    expect(textOf(await carol.callTool(clerk('first')))).toBe('may use: docs.echo; ok: docs: first');
    expect((await carol.callTool(echo('second'))).isError).toBeFalsy();
    expect(textOf(await carol.callTool(clerk('third'))))
      .toMatch(/^may use: docs\.echo; failed: Rate limit exceeded: at most 2 calls of tools matching docs\.\* per caller every hour\. Retry after \d+ s\.$/);
    // Another caller's agent calls are its own.
    const dave = await h.connect('legacy', 'dave', SCOPES);
    expect(textOf(await dave.callTool(clerk('mine')))).toBe('may use: docs.echo; ok: docs: mine');
  });

  test('a pattern set to off limits nothing, and a tool no pattern matches is not limited', async () => {
    const erin = await h.connect('legacy', 'erin', SCOPES);
    for (let i = 0; i < 3; i++) expect((await erin.callTool(clerk(`turn ${i}`))).isError).toBeFalsy();
  });
});

describe('a call of several 2026-07-28 rounds', () => {
  let server: TestServer;
  let runs = 0;
  const asker: InProcessAgent = async function* ({ ask }) {
    const who = await ask.elicit({ message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    runs += 1;
    yield `Hello ${String(who.content?.name)}`;
  };
  beforeAll(async () => {
    server = await startTestServer(createMcpHandler(createApp({
      definitions: [agentDefinitions({}, [{ id: 'asker', name: 'Asker', description: 'Asks first.', reply: asker }])],
      limits: createLimitsFromEnv({ RATE_LIMIT_TOOLS: '{"chat_with_agent":"1/1h"}' }, undefined),
      stateSecret: 's'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
    })));
  });
  afterAll(() => server?.close());

  test('counts once: the round that answers the question carries its requestState and is not refused; a new call is', async () => {
    const call = { name: 'chat_with_agent', arguments: { agent_id: 'asker', message: 'hi' } };
    const capabilities = { elicitation: {} };
    const first = await (await postModern(server.mcpUrl, 1, 'tools/call', call, { capabilities })).json();
    expect(first.result.resultType).toBe('input_required');
    const second = await (await postModern(server.mcpUrl, 2, 'tools/call', {
      ...call, inputResponses: { q1: { action: 'accept', content: { name: 'ada' } } }, requestState: first.result.requestState,
    }, { capabilities })).json();
    expect(second.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello ada' }] });
    const another = await (await postModern(server.mcpUrl, 3, 'tools/call', call, { capabilities })).json();
    expect(another.result).toMatchObject({ isError: true, _meta: { [RETRY_AFTER_META]: expect.any(Number) } });
    expect(runs).toBe(1);
  });
});

describe('RATE_LIMIT_TOOLS at start-up', () => {
  const read = (value: string) => () => createLimitsFromEnv({ RATE_LIMIT_TOOLS: value }, undefined);

  test.each([
    ['not json', /^RATE_LIMIT_TOOLS must be a JSON object .* it is not valid JSON\.$/],
    ['["chat_with_agent"]', /^RATE_LIMIT_TOOLS must be a JSON object of tool-name patterns and rates/],
    ['{"chat_with_agent":"ten a minute"}', /^RATE_LIMIT_TOOLS "chat_with_agent" must look like 60\/1m/],
    ['{"chat_with_agent":10}', /^RATE_LIMIT_TOOLS "chat_with_agent" must look like 60\/1m/],
    ['{"agent:writer":"1/1m"}', /^RATE_LIMIT_TOOLS: "agent:writer" names an agent, not a tool\.$/],
    ['{"docs echo":"1/1m"}', /^RATE_LIMIT_TOOLS: "docs echo" is a tool name, or a pattern/],
  ])('%s stops start-up with a TypeError naming the variable', (value, message) => {
    expect(read(value)).toThrow(TypeError);
    expect(read(value)).toThrow(message);
  });

  test(`more than ${MAX_TOOL_PATTERNS} patterns stop start-up`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_TOOL_PATTERNS + 1 }, (_, i) => [`tool${i}`, '1/1m']));
    expect(read(JSON.stringify(many))).toThrow(`RATE_LIMIT_TOOLS names ${MAX_TOOL_PATTERNS + 1} patterns; at most ${MAX_TOOL_PATTERNS} are allowed.`);
  });

  test('unset, empty or off sets no limit; a tool limit alone turns the limits on and says so', () => {
    expect(createLimitsFromEnv({}, undefined)).toBeUndefined();
    expect(createLimitsFromEnv({ RATE_LIMIT_TOOLS: 'off' }, undefined)).toBeUndefined();
    const limits = createLimitsFromEnv({ RATE_LIMIT_TOOLS: '{"chat_with_agent":"10/1m","research.*":"30/1h"}' }, undefined)!;
    expect(limits.summary).toBe('rate limits: ip off, principal off, tools chat_with_agent 10/1m, research.* 30/1h (counted per instance in memory; on a Redis fault: fail open)');
    expect(limits.byIp).toBeUndefined();
    expect(createLimitsFromEnv({ RATE_LIMIT_IP: '5/1m' }, undefined)!.limitToolFor).toBeUndefined();
  });
});
