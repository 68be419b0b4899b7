/**
 * In-process: code in the same deployment opens the official client on the app's dispatcher with no
 * network hop; the principal it passes is treated as a verified token's; an in-process agent reaches the
 * mounted servers' tools through that same path; the demo agent lists the tools it could call.
 */

import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp, createDefaultApp, type App } from '../../lib/app.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import type { Principal } from '../../lib/server/context.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { namesOf, startMountedApp, whoami, type MountedApp } from '../support/mounts.js';
import { firstText } from '../support/sdk.js';

const JOB_RUNNER: Principal = { subject: 'job-runner', clientId: 'cron', scopes: ['agents:chat', 'docs:read'] };

let docs: Downstream;
let mounted: MountedApp;

beforeAll(async () => {
  docs = await startDownstream('docs');
  mounted = startMountedApp([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
});

afterAll(async () => {
  await mounted.close();
  await docs.close();
});

describe('an in-process client with props', () => {
  test.each(['legacy', 'modern'] as const)('the principal and its scopes reach the tool as given, on the %s era', async (era) => {
    const { client } = await mounted.connect(era, JOB_RUNNER);
    const result = await client.callTool({ name: 'whoami' });
    expect(result.structuredContent).toEqual({ principal: JOB_RUNNER });
  });

  test('lists and calls mounted tools next to the app\'s own', async () => {
    const { client } = await mounted.connect('legacy', JOB_RUNNER);
    const { tools } = await client.listTools();
    expect(namesOf(tools)).toEqual(expect.arrayContaining(['whoami', 'docs.echo', 'docs.weather']));
    const result = await client.callTool({ name: 'docs.echo', arguments: { text: 'no network hop to us' } });
    expect(firstText(result)).toBe('docs: no network hop to us');
  });

  test('the principal is not forwarded downstream: the mount\'s own credentials are', async () => {
    const { client } = await mounted.connect('legacy', JOB_RUNNER);
    const result = await client.callTool({ name: 'docs.headers' });
    expect(firstText(result)).toBe('(none)');
  });
});

describe('scopes of an in-process principal', () => {
  const audit: ToolDefinition = {
    name: 'audit',
    description: 'Needs audit:read.',
    scopes: ['audit:read'],
    run: () => ({ content: [{ type: 'text', text: 'audited' }] }),
  };
  let scoped: MountedApp;

  beforeAll(() => {
    scoped = startMountedApp([{ name: 'docs', url: docs.url, scopes: ['docs:read'] }], { waitMs: 10_000, tools: [whoami, audit] });
  });

  afterAll(() => scoped.close());

  test.each(['legacy', 'modern'] as const)('without the scope, a scoped tool (own or mounted) is hidden and refused with 403, on the %s era', async (era) => {
    const { client } = await scoped.connect(era, { subject: 'intern', scopes: ['agents:chat'] });
    expect(namesOf((await client.listTools()).tools)).toEqual(['whoami']);
    for (const name of ['audit', 'docs.echo']) {
      const error = await client.callTool({ name, arguments: { text: 'x' } }).then(() => undefined, (e: { code: number; message: string }) => e);
      expect(error).toMatchObject({ code: 403 });
      expect(error?.message).toContain(`Insufficient scope: ${name} needs`);
    }
  });

  test('with the scopes, the same tools are listed and run', async () => {
    const { client } = await scoped.connect('legacy', { subject: 'auditor', scopes: ['audit:read', 'docs:read'] });
    expect(namesOf((await client.listTools()).tools)).toEqual(expect.arrayContaining(['audit', 'docs.echo', 'whoami']));
    expect(firstText(await client.callTool({ name: 'audit' }))).toBe('audited');
    expect(firstText(await client.callTool({ name: 'docs.echo', arguments: { text: 'x' } }))).toBe('docs: x');
  });
});

describe('an in-process agent', () => {
  let app: App;
  let mounts: Mounts;

  beforeAll(() => {
    mounts = createMounts({ mounts: [{ name: 'docs', url: docs.url }], waitMs: 10_000 });
    // An agent written in code that answers by calling a mounted tool through an in-process client on its app.
    const relay = async function* ({ message }: { message: string }) {
      const client = new Client({ name: 'relay-agent', version: '1.0.0' });
      await client.connect(app.connectInProcess({ subject: 'agent:relay', scopes: [] }));
      try {
        yield firstText(await client.callTool({ name: 'docs.echo', arguments: { text: message } }));
      } finally {
        await client.close();
      }
    };
    app = createApp({
      definitions: [agentDefinitions({}, [{ id: 'relay', name: 'Relay', description: 'Relays to the docs mount.', reply: relay }])],
      mounts,
      stateSecret: 'r'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
    });
  });

  afterAll(() => mounts.close());

  test('uses a mounted tool through the same in-process path', async () => {
    const client = new Client({ name: 'caller', version: '1.0.0' });
    await client.connect(app.connectInProcess(JOB_RUNNER));
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'relay', message: 'ping' } });
    expect(result.structuredContent).toMatchObject({ agent_id: 'relay', reply: 'docs: ping' });
    await client.close();
  });
});

describe('the demo agent', () => {
  test('asked what tools it can call, lists them through an in-process client, mounted ones included', async () => {
    const app = createDefaultApp({ MCP_MOUNTS: JSON.stringify([{ name: 'docs', url: docs.url }]), MCP_MOUNTS_WAIT_MS: '10000' });
    const client = new Client({ name: 'caller', version: '1.0.0' });
    await client.connect(app.connectInProcess(JOB_RUNNER));
    try {
      const result = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'What tools can you call?' } });
      const reply = firstText(result);
      expect(reply).toContain('Through an in-process MCP client on this server I could call');
      for (const name of ['chat_with_agent', 'docs.echo', 'docs.weather']) expect(reply).toContain(`\n- ${name}`);

      const echo = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hello' } });
      expect(firstText(echo)).toContain('You said: "hello"');
    } finally {
      await client.close();
      await app.mounts?.close();
    }
  });
});
