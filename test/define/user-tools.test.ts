/**
 * A deployment's own tools (lib/define, listed as tools/index.ts lists them) get what chat_with_agent gets:
 * the paginated, scope-filtered list, JSON Schema 2020-12, SEP-1303 validation errors, progress, elicitation,
 * both eras over real HTTP with the official client, and the in-process client. Bearer tokens are real
 * signatures from a loopback issuer.
 */

import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import * as jose from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp, type App } from '../../lib/app.js';
import { definePrompt, defineResourceTemplate, defineTool, ToolError } from '../../lib/define/index.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { answerElicitation, createV2Client, firstText, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

const AUDIENCE = 'https://tools.example.test/mcp';

const add = defineTool({
  name: 'calc.add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  annotations: { readOnlyHint: true },
  icons: [{ src: 'https://example.test/calc.png', mimeType: 'image/png' }],
  run: ({ a, b }) => ({ structuredContent: { sum: a + b } }),
});

const steps = defineTool({
  name: 'steps',
  description: 'Reports a progress notification per step.',
  input: z.object({ n: z.number().int().min(1).max(5) }),
  run: async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) ctx.progress(i, n, `step ${i}`);
    return `did ${n} steps`;
  },
});

const whoami = defineTool({ name: 'whoami', description: 'Who is calling.', input: z.object({}), run: (_args, ctx) => ctx.principal?.subject ?? 'nobody' });
const adminOnly = defineTool({ name: 'admin.only', description: 'Needs admin.', scopes: ['admin'], input: z.object({}), run: () => 'ok' });
const fails = defineTool({ name: 'fails', description: 'Says why it fails.', input: z.object({}), run: () => { throw new ToolError('No such order.'); } });
const crashes = defineTool({ name: 'crashes', description: 'Fails unexpectedly.', input: z.object({}), run: () => { throw new Error('secret detail'); } });
const lies = defineTool({
  name: 'lies',
  description: 'Returns what its output schema refuses.',
  input: z.object({}),
  output: z.object({ n: z.number() }),
  run: () => ({ structuredContent: JSON.parse('{"n":"not a number"}') }),
});
const confirm = defineTool({
  name: 'confirm',
  description: 'Asks the user a question, then answers with what they said.',
  input: z.object({}),
  run: async (_args, ctx) => {
    const answer = await ctx.elicit('Proceed?', z.object({ ok: z.boolean(), why: z.string() }));
    return answer.action === 'accept' ? `ok=${answer.content.ok} why=${answer.content.why}` : answer.action;
  },
});

// Types follow the schemas: a wrong argument or result type does not compile (npm run typecheck).
defineTool({
  name: 'typed',
  description: 'Types only.',
  input: z.object({ a: z.number() }),
  output: z.object({ s: z.string() }),
  // @ts-expect-error `a` is a number, and the structured result must be { s: string }
  run: ({ a }) => ({ structuredContent: { s: a.toUpperCase() } }),
});

/** More tools than a page holds (100), so the list pages. */
const fillers = Array.from({ length: 105 }, (_, i) => defineTool({ name: `filler.${i}`, description: 'Fills the list.', input: z.object({}), run: () => 'filler' }));

const topic = definePrompt({
  name: 'topic',
  description: 'A prompt with typed arguments.',
  arguments: z.object({ subject: z.string().min(2).describe('What to write about'), tone: z.string().optional() }),
  get: ({ subject, tone }) => `Write about ${subject}${tone ? ` in a ${tone} tone` : ''}.`,
});
const orders = defineResourceTemplate({
  uriTemplate: 'orders://{id}',
  name: 'order',
  mimeType: 'application/json',
  read: (_uri, { id }) => JSON.stringify({ id, status: 'shipped' }),
});

let issuer: TestIssuer;
let app: App;
let server: TestServer;
const now = () => Math.floor(Date.now() / 1000);
const token = (sub: string, scope: string) => issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub, scope, iat: now(), exp: now() + 300 } as jose.JWTPayload);

beforeAll(async () => {
  issuer = await startIssuer();
  app = createDefaultApp({ AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_SCOPES: 'mcp', MCP_LOG: 'off' }, {
    tools: [add, steps, whoami, adminOnly, fails, crashes, lies, confirm, ...fillers],
    prompts: [topic],
    resourceTemplates: [orders],
  });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

let client: Client | undefined;
afterEach(async () => { await client?.close(); client = undefined; });

async function connect(era: Era, scope = 'mcp', sub = 'alice'): Promise<Client> {
  client = createV2Client(era, { elicitation: {} });
  const headers = { authorization: `Bearer ${await token(sub, scope)}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } }));
  return client;
}

/** Every tool listed to `c` (the client follows nextCursor itself). */
const listAll = async (c: Client) => (await c.listTools()).tools;

describe.each<Era>(['legacy', 'modern'])('a deployment\'s own tools over HTTP, %s wire', (era) => {
  test('they are listed after chat_with_agent across pages, with JSON Schema 2020-12 input and output schemas', async () => {
    const c = await connect(era);
    const first = await c.request({ method: 'tools/list', params: {} });
    expect(first.tools).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    const tools = await listAll(c);
    expect(tools).toHaveLength(1 + 7 + 105); // chat_with_agent, ours but admin.only (scope admin), the fillers
    expect(tools[0]!.name).toBe('chat_with_agent');
    const listed = tools.find((t) => t.name === 'calc.add')!;
    expect(listed.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' } },
    });
    expect(listed.outputSchema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['sum'] });
    expect(listed.annotations).toEqual({ readOnlyHint: true });
    expect(listed.icons).toEqual([{ src: 'https://example.test/calc.png', mimeType: 'image/png' }]);
    expect(tools.filter((t) => t.name.startsWith('filler.'))).toHaveLength(105);
  });

  test('a call gets its structured result, mirrored as text', async () => {
    const result = await (await connect(era)).callTool({ name: 'calc.add', arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(firstText(result)).toBe('{"sum":5}');
  });

  test('arguments the schema refuses are an isError result naming the field (SEP-1303), not a protocol error', async () => {
    const result = await (await connect(era)).callTool({ name: 'calc.add', arguments: { a: 'two', b: 3 } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^Invalid arguments for tool calc\.add: a: /);
  });

  test('a ToolError is an isError result with its message; any other failure says nothing of its detail', async () => {
    const c = await connect(era);
    const failed = await c.callTool({ name: 'fails', arguments: {} });
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'No such order.' }] });
    const crashed = await c.callTool({ name: 'crashes', arguments: {} });
    expect(crashed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool crashes failed unexpectedly.' }] });
  });

  test('a result the output schema refuses never reaches the client: an isError result says so', async () => {
    const result = await (await connect(era)).callTool({ name: 'lies', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(firstText(result)).toBe('Tool lies produced a result that does not match its output schema.');
  });

  test('ctx.progress reaches a client that asked for progress', async () => {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await (await connect(era)).callTool({ name: 'steps', arguments: { n: 3 } }, { onprogress: (p) => seen.push(p) });
    expect(firstText(result)).toBe('did 3 steps');
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  });

  test('ctx.principal is the verified caller', async () => {
    expect(firstText(await (await connect(era, 'mcp', 'bob')).callTool({ name: 'whoami', arguments: {} }))).toBe('bob');
  });

  test('a tool naming its own scope is hidden from a caller without it, and a call is refused 403', async () => {
    const c = await connect(era);
    expect((await listAll(c)).map((t) => t.name)).not.toContain('admin.only');
    await expect(c.callTool({ name: 'admin.only', arguments: {} })).rejects.toThrow(/Insufficient scope: required "admin mcp"/);
    await c.close();
    const admin = await connect(era, 'mcp admin');
    expect((await listAll(admin)).map((t) => t.name)).toContain('admin.only');
    expect(firstText(await admin.callTool({ name: 'admin.only', arguments: {} }))).toBe('ok');
  });

  test('ctx.elicit asks the user and returns the typed answer', async () => {
    const c = await connect(era);
    const asked = answerElicitation(c, () => ({ ok: true, why: 'because' }));
    const result = await c.callTool({ name: 'confirm', arguments: {} });
    expect(firstText(result)).toBe('ok=true why=because');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: 'Proceed?', requestedSchema: { type: 'object', required: ['ok', 'why'] } });
  });

  test('an answer that does not fit the question is an isError result, not a crash', async () => {
    const c = await connect(era);
    answerElicitation(c, () => ({ ok: 'maybe' }));
    const result = await c.callTool({ name: 'confirm', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^The answer does not fit the question: /);
  });

  test('a prompt gets its typed arguments; arguments its schema refuses are -32602', async () => {
    const c = await connect(era);
    const { prompts } = await c.listPrompts();
    expect(prompts.find((p) => p.name === 'topic')?.arguments).toEqual([
      { name: 'subject', description: 'What to write about', required: true },
      { name: 'tone', required: false },
    ]);
    const got = await c.getPrompt({ name: 'topic', arguments: { subject: 'tides', tone: 'dry' } });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write about tides in a dry tone.' } }]);
    await expect(c.getPrompt({ name: 'topic', arguments: { subject: 'x' } }))
      .rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid arguments for prompt topic: subject: /) });
  });

  test('a resource template reads with its variables', async () => {
    const read = await (await connect(era)).readResource({ uri: 'orders://A-17' });
    expect(read.contents).toEqual([{ uri: 'orders://A-17', mimeType: 'application/json', text: '{"id":"A-17","status":"shipped"}' }]);
  });
});

describe('the in-process client', () => {
  test('lists and calls a deployment\'s own tools as the principal it is given', async () => {
    const { Client } = await import('@modelcontextprotocol/client');
    client = new Client({ name: 'job', version: '1.0.0' });
    await client.connect(app.connectInProcess({ subject: 'job-runner', scopes: ['mcp'] }));
    const names = (await listAll(client)).map((t) => t.name);
    expect(names).toContain('calc.add');
    expect(names).not.toContain('admin.only');
    expect((await client.callTool({ name: 'calc.add', arguments: { a: 1, b: 1 } })).structuredContent).toEqual({ sum: 2 });
    expect(firstText(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('job-runner');
  });
});
