/**
 * The skills extension (SEP-2640) over real loopback HTTP with the official clients: the v2 client on both
 * wires, the v1 SDK client on the legacy one. The server pages one item at a time so every list paginates.
 */

import { createHash } from 'node:crypto';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { INVALID_PARAMS } from '../../lib/protocol/errors.js';
import {
  DIRECTORY_MIME_TYPE, DIRECTORY_READ, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST,
} from '../../lib/protocol/skills.js';
import { conformanceSkills } from '../fixtures/conformance-skills.js';
import { connectHttp, createV2Client, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

const REFUNDS = 'skill://acme/billing/refunds/SKILL.md';
const ANY = z.looseObject({});
const ORIGIN = { local: true, allowedOrigins: new Set<string>() };

function skillsApp(pageSize = 1) {
  const echo = { id: 'echo', name: 'Echo', description: 'Says it back.', reply: async function* () { yield 'ok'; } };
  return createApp({ definitions: [conformanceSkills, agentDefinitions({}, [echo])], pageSize, origin: ORIGIN });
}

/** Every page of a paginated method, following nextCursor. */
async function allPages(request: (cursor?: string) => Promise<any>): Promise<any[]> {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await request(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

describe.each<Era>(['modern', 'legacy'])('skills with the v2 client on the %s wire', (era) => {
  let server: TestServer;
  let client: Client;
  const call = (method: string, params: Record<string, unknown> = {}) => client.request({ method, params } as never, ANY) as Promise<any>;
  const failure = (method: string, params: Record<string, unknown>) => call(method, params).then(() => undefined, (error) => error);
  const listAll = () => allPages((cursor) => call(SKILLS_LIST, cursor ? { cursor } : {}));

  beforeAll(async () => {
    server = await startTestServer(createMcpHandler(skillsApp()));
    client = createV2Client(era);
    await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('the server declares the skills extension inline, with directoryRead, beside the resources capability', () => {
    const capabilities = client.getServerCapabilities() as any;
    expect(capabilities.extensions?.[SKILLS_EXTENSION]).toEqual({ directoryRead: true });
    expect(capabilities.resources).toBeTypeOf('object');
  });

  test('skills/list pages whole skills, the deployment\'s before the agents\', and ends', async () => {
    const pages = await listAll();
    expect(pages.map((page) => page.skills.length)).toEqual([1, 1]);
    expect(pages.flatMap((page) => page.skills.map((s: any) => s.uri))).toEqual([REFUNDS, 'skill://agents/echo/SKILL.md']);
    // List-caching attributes exist from 2026-07-28 (SEP-2549); the legacy wire has none.
    expect(pages[0].ttlMs !== undefined && pages[0].cacheScope !== undefined).toBe(era === 'modern');
  });

  test('each listed file reads back through resources/read with the digest and byte size of its entry', async () => {
    const [{ skills: [refunds] }] = await listAll();
    expect(refunds.resources.map((r: any) => r.uri)).toEqual([
      REFUNDS,
      'skill://acme/billing/refunds/templates/approved.md',
      'skill://acme/billing/refunds/templates/regional/eu-refund.md',
      'skill://acme/billing/refunds/references/policy.json',
    ]);
    for (const { uri, digest, size } of refunds.resources) {
      const { contents: [content] } = await client.readResource({ uri });
      const text = (content as { text: string }).text;
      expect(digest).toBe(sha256(text));
      expect(size).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  test('SKILL.md is markdown whose YAML frontmatter is the entry\'s frontmatter, field for field', async () => {
    const [{ skills: [refunds] }] = await listAll();
    const { contents: [content] } = await client.readResource({ uri: REFUNDS });
    expect(content!.mimeType).toBe('text/markdown');
    const yaml = /^---\n([\s\S]*?)\n---\n/.exec((content as { text: string }).text)?.[1];
    expect(parseYaml(yaml!)).toEqual(refunds.frontmatter);
    expect(refunds.frontmatter).toEqual(expect.objectContaining({ name: 'refunds', license: 'Apache-2.0', metadata: { version: '2.1.0' } }));
  });

  test('resources/list names SKILL.md after the frontmatter\'s name and description', async () => {
    const resources = (await allPages((cursor) => client.listResources(cursor ? { cursor } : undefined))).flatMap((p) => p.resources);
    expect(resources.find((r) => r.uri === REFUNDS)).toEqual(expect.objectContaining({
      name: 'refunds', description: 'Process customer refund requests per company policy.', mimeType: 'text/markdown',
    }));
  });

  test('skills/get returns the entry skills/list gave, with no cursor', async () => {
    const [{ skills: [listed] }] = await listAll();
    const got = await call(SKILLS_GET, { uri: REFUNDS });
    expect(got.skill).toEqual(listed);
    expect(got.nextCursor).toBeUndefined();
  });

  test('skills/get of a URI that names no skill is -32602 with the URI in data', async () => {
    const uri = 'skill://acme/billing/refunds/templates/approved.md';
    const error = await failure(SKILLS_GET, { uri });
    expect(error.code).toBe(INVALID_PARAMS);
    expect(error.message).toContain(`Not a skill this server serves: ${uri}`);
    expect(error.data).toEqual({ uri });
  });

  test.each([
    [SKILLS_GET, {}, 'params.uri must be a string.'],
    [DIRECTORY_READ, { uri: 42 }, 'params.uri must be a string.'],
    [SKILLS_LIST, { cursor: 'not-a-cursor' }, 'Invalid pagination cursor.'],
  ])('%s with bad params %j is -32602: %s', async (method, params, message) => {
    const error = await failure(method, params);
    expect(error.code).toBe(INVALID_PARAMS);
    expect(error.message).toContain(message);
  });

  test('resources/directory/read lists direct children, subdirectories as inode/directory, a page at a time', async () => {
    const children = async (uri: string) => (await allPages((cursor) => call(DIRECTORY_READ, cursor ? { uri, cursor } : { uri })))
      .flatMap((page) => page.resources);
    expect(await children('skill://acme/billing/refunds')).toEqual([
      { uri: REFUNDS, name: 'refunds', mimeType: 'text/markdown', description: 'Process customer refund requests per company policy.' },
      { uri: 'skill://acme/billing/refunds/templates', name: 'templates', mimeType: DIRECTORY_MIME_TYPE },
      { uri: 'skill://acme/billing/refunds/references', name: 'references', mimeType: DIRECTORY_MIME_TYPE },
    ]);
    expect(await children('skill://acme/billing/refunds/templates')).toEqual([
      { uri: 'skill://acme/billing/refunds/templates/approved.md', name: 'approved.md', mimeType: 'text/markdown' },
      { uri: 'skill://acme/billing/refunds/templates/regional', name: 'regional', mimeType: DIRECTORY_MIME_TYPE },
    ]);
    // The organising prefix above a skill is a directory too.
    expect(await children('skill://acme')).toEqual([{ uri: 'skill://acme/billing', name: 'billing', mimeType: DIRECTORY_MIME_TYPE }]);
  });

  test.each([REFUNDS, 'skill://acme/billing/refunds/', 'skill://nowhere'])('resources/directory/read of %s, not a directory, is -32602', async (uri) => {
    const error = await failure(DIRECTORY_READ, { uri });
    expect(error.code).toBe(INVALID_PARAMS);
    expect(error.data).toEqual({ uri });
  });
});

describe('skills with the v1 SDK client', () => {
  let server: TestServer;
  let client: ClientV1;

  beforeAll(async () => {
    server = await startTestServer(createMcpHandler(skillsApp(100)));
    client = new ClientV1({ name: 'agent-mcp-tests-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(server.mcpUrl)));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('a v1 client sees the extension, lists the skills in one page and reads an agent\'s SKILL.md', async () => {
    expect((client.getServerCapabilities() as any)?.extensions?.[SKILLS_EXTENSION]).toEqual({ directoryRead: true });
    const listed: any = await client.request({ method: SKILLS_LIST, params: {} }, ANY);
    expect(listed.skills.map((s: any) => s.uri)).toEqual([REFUNDS, 'skill://agents/echo/SKILL.md']);
    expect(listed.nextCursor).toBeUndefined();
    const { contents: [content] } = await client.readResource({ uri: 'skill://agents/echo/SKILL.md' });
    expect((content as { text: string }).text).toContain('"agent_id":"echo"');
  });
});

describe('a server without skills', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer(createMcpHandler(createApp({ definitions: [{ resources: [] }], origin: ORIGIN })));
    client = createV2Client('modern');
    await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('declares no skills extension and answers skills/list with an empty listing', async () => {
    expect((client.getServerCapabilities() as any)?.extensions?.[SKILLS_EXTENSION]).toBeUndefined();
    const listed: any = await client.request({ method: SKILLS_LIST, params: {} } as never, ANY);
    expect(listed.skills).toEqual([]);
  });
});
