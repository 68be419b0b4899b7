/**
 * A deployment's own resources, resource templates, prompts and skills (lib/define, tools/index.ts) name the scopes
 * they need as tools do, and the one access rule holds for them (docs/security.md "What scopes gate"): hidden
 * from lists, 403 insufficient_scope on read, get and complete, their code never run for a caller without the
 * scopes. The same holds when the bundle serves them from the description written at build time
 * (lib/define/manifest.ts, lazy.ts). In-process clients are the official v2 client, held to AUTH_SCOPES as tokens are.
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createDefaultApp } from '../../lib/app.js';
import { definePrompt, defineResource, defineResourceTemplate, type Additions } from '../../lib/define/index.js';
import { lazyAdditions } from '../../lib/define/lazy.js';
import { describeAdditions } from '../../lib/define/manifest.js';
import { INSUFFICIENT_SCOPE } from '../../lib/protocol/errors.js';
import type { Principal } from '../../lib/server/context.js';
import { createV2Client } from '../support/sdk.js';

const DEFAULT = 'mcp';
const ADMIN = 'notes:admin';
const ran = { read: 0, template: 0, prompt: 0, complete: 0 };

const additions: Additions = {
  resources: [
    defineResource({ uri: 'notes://public', name: 'public', read: () => 'public notes' }),
    defineResource({ uri: 'notes://secret', name: 'secret', scopes: [ADMIN], read: () => `secret notes ${++ran.read}` }),
  ],
  resourceTemplates: [defineResourceTemplate({
    uriTemplate: 'notes://secret/{id}',
    name: 'secret-note',
    scopes: [ADMIN],
    complete: { id: () => (++ran.complete, ['1', '2']) },
    read: (_uri, { id }) => `secret note ${id} ${++ran.template}`,
  })],
  prompts: [definePrompt({
    name: 'secret_prompt',
    description: 'Summarise the secret notes.',
    scopes: [ADMIN],
    arguments: z.object({ topic: z.string() }),
    get: ({ topic }) => `summarise ${topic} ${++ran.prompt}`,
  })],
  skills: [{ path: 'secret-skill', frontmatter: { name: 'secret-skill', description: 'Handles the secret notes.' }, instructions: '# Secret', scopes: [ADMIN] }],
};

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
beforeAll(() => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
});

test('the build-time description keeps every entry\'s scopes', () => {
  const manifest = describeAdditions(additions);
  expect([...manifest.resources!, ...manifest.resourceTemplates!, ...manifest.prompts!, ...manifest.skills!].map((d) => d.scopes))
    .toEqual([undefined, [ADMIN], [ADMIN], [ADMIN], [ADMIN]]);
});

describe.each<[string, () => Additions]>([
  ['as defined', () => additions],
  ['from the build-time description', () => lazyAdditions(describeAdditions(additions), async () => ({ default: additions }))],
])('a deployment\'s own entries %s', (_label, served) => {
  const connect = async (scopes: string[]) => {
    const app = createDefaultApp({ AUTH_ISSUER: 'http://127.0.0.1:9', AUTH_AUDIENCE: 'http://localhost:3000/mcp', AUTH_SCOPES: DEFAULT, MCP_LOG: 'off' }, served());
    const client = createV2Client('legacy');
    clients.push(client);
    await client.connect(app.connectInProcess({ subject: 'someone', scopes } satisfies Principal));
    return client;
  };

  /** The URIs of the deployment's own resources (the default app serves the demo agent's too). */
  const ownUris = async (client: Client) => (await client.listResources()).resources.map((r) => r.uri).filter((uri) => /^(notes|skill):\/\/(?!agents\/)/.test(uri)).sort();

  test('a caller without their scopes sees none of them, and is refused each with 403, their code not run', async () => {
    const before = { ...ran };
    const client = await connect([DEFAULT]);
    expect(await ownUris(client)).toEqual(['notes://public']);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const refused = { code: INSUFFICIENT_SCOPE, data: { requiredScopes: [ADMIN], grantedScopes: [DEFAULT] } };
    await expect(client.readResource({ uri: 'notes://secret' })).rejects.toMatchObject(refused);
    await expect(client.readResource({ uri: 'notes://secret/1' })).rejects.toMatchObject(refused);
    await expect(client.readResource({ uri: 'skill://secret-skill/SKILL.md' })).rejects.toMatchObject(refused);
    await expect(client.getPrompt({ name: 'secret_prompt', arguments: { topic: 'x' } })).rejects.toMatchObject(refused);
    await expect(client.complete({ ref: { type: 'ref/resource', uri: 'notes://secret/{id}' }, argument: { name: 'id', value: '' } })).rejects.toMatchObject(refused);
    expect(ran).toEqual(before);
  });

  test('a caller with their scopes gets all of them (an entry\'s own scopes replace the default)', async () => {
    const client = await connect([ADMIN]);
    expect(await ownUris(client)).toEqual(['notes://secret', 'skill://secret-skill/SKILL.md']);
    expect((await client.readResource({ uri: 'notes://secret/7' })).contents[0]).toMatchObject({ text: expect.stringMatching(/^secret note 7 /) });
    expect((await client.getPrompt({ name: 'secret_prompt', arguments: { topic: 'x' } })).messages).toHaveLength(1);
    expect((await client.complete({ ref: { type: 'ref/resource', uri: 'notes://secret/{id}' }, argument: { name: 'id', value: '' } })).completion.values).toEqual(['1', '2']);
  });
});
