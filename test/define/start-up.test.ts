/**
 * A deployment's names never shadow agent-mcp's own or a mount's: a collision is a TypeError at start-up that
 * names both holders. A mount connects lazily, so what it publishes under a URI the app serves is left out
 * when it connects, logged for the operator and listed in mount://status.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createDefaultApp, type App } from '../../lib/app.js';
import { defineResource, defineTool, definePrompt } from '../../lib/define/index.js';
import { MOUNT_STATUS_URI } from '../../lib/mounts/index.js';
import { startDownstream, type Downstream } from '../support/downstream.js';

const tool = (name: string, paid = false) => defineTool({ name, description: 'A tool.', input: z.object({}), paid, run: () => 'ok' });
const resource = (uri: string) => defineResource({ uri, name: 'mine', read: () => 'ours' });
const prompt = (name: string) => definePrompt({ name, description: 'A prompt.', get: () => 'hi' });
const UNREACHABLE_MOUNT = JSON.stringify([{ name: 'github', url: 'http://127.0.0.1:9/mcp' }]);

describe('collisions are refused at start-up, naming both', () => {
  test.each([
    ['a tool named chat_with_agent', {}, { tools: [tool('chat_with_agent')] },
      'Duplicate tool "chat_with_agent": defined by agent-mcp itself (chat_with_agent and the agent:// resources) and by tools/index.ts.'],
    ['a resource at an agent:// URI', {}, { resources: [resource('agent://demo')] },
      'Duplicate resource "agent://demo": defined by agent-mcp itself (chat_with_agent and the agent:// resources) and by tools/index.ts.'],
    ['a resource at mount://status', { MCP_MOUNTS: UNREACHABLE_MOUNT }, { resources: [resource(MOUNT_STATUS_URI)] },
      'Duplicate resource "mount://status": defined by tools/index.ts and by agent-mcp itself (mount://status).'],
    ['one prompt name used twice', {}, { prompts: [prompt('review'), prompt('review')] },
      'Duplicate prompt "review": defined twice by tools/index.ts.'],
    ['a tool under a mount\'s prefix', { MCP_MOUNTS: UNREACHABLE_MOUNT }, { tools: [tool('github.search')] },
      'Tool "github.search" collides with mount "github": names starting "github." belong to that mount; rename one of them.'],
    ['a prompt under a mount\'s prefix', { MCP_MOUNTS: UNREACHABLE_MOUNT }, { prompts: [prompt('github.triage')] },
      'Prompt "github.triage" collides with mount "github": names starting "github." belong to that mount; rename one of them.'],
    ['a paid tool without X402_PAY_TO', {}, { tools: [tool('report', true)] },
      'Tool "report" (tools/index.ts) is marked paid, but X402_PAY_TO is not set; set X402_PAY_TO or drop paid.'],
  ])('%s', (_case, env, additions, message) => {
    expect(() => createDefaultApp({ MCP_LOG: 'off', MCP_MOUNTS_WAIT_MS: '0', ...env }, additions)).toThrow(new TypeError(message));
  });

  test('a mount added later under a prefix the app uses is refused too', () => {
    const withMounts = createDefaultApp({ MCP_LOG: 'off', MCP_MOUNTS: JSON.stringify([{ name: 'other', url: 'http://127.0.0.1:9/mcp' }]), MCP_MOUNTS_WAIT_MS: '0' }, { tools: [tool('notes.add')] });
    expect(() => withMounts.mounts!.add({ name: 'notes', url: 'http://127.0.0.1:9/mcp' }))
      .toThrow(new TypeError('Tool "notes.add" collides with mount "notes": names starting "notes." belong to that mount; rename one of them.'));
    void withMounts.mounts!.close();
  });
});

describe('a tool whose input or output MCP cannot publish is refused at start-up, naming the tool', () => {
  // defineTool's types already say so; a deployment run without `npm run typecheck` learns it here, not from a client.
  const shaped = (name: string, schemas: Record<string, unknown>) =>
    defineTool({ name, description: 'A tool.', input: z.object({}), run: () => 'ok', ...schemas } as never);
  test.each([
    ['an input that is not an object', shaped('shout', { input: z.string() }),
      'Tool "shout": its input must be an object schema, z.object({ … }), not type "string": MCP sends a tool\'s arguments as one object.'],
    ['an input that is a union of objects', shaped('pick', { input: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) }),
      'Tool "pick": its input must be an object schema, z.object({ … }), not a schema without type "object": MCP sends a tool\'s arguments as one object.'],
    ['an input that is not a zod schema', shaped('raw', { input: { type: 'object', properties: {} } }),
      'Tool "raw": its input must be a zod schema (import * as z from \'zod\'; input: z.object({ … })).'],
    ['an output that is not an object', shaped('count', { output: z.number() }),
      'Tool "count": its output must be an object schema, z.object({ … }), not type "number": MCP sends a tool\'s structured result as one object.'],
  ])('%s', (_case, tool, message) => {
    expect(() => createDefaultApp({ MCP_LOG: 'off' }, { tools: [tool] })).toThrow(new TypeError(message));
  });
});

describe('a mounted resource under a URI the app serves', () => {
  let downstream: Downstream;
  let app: App;
  beforeAll(async () => {
    downstream = await startDownstream('docs');
    app = createDefaultApp({ MCP_LOG: 'off', MCP_MOUNTS: JSON.stringify([{ name: 'docs', url: downstream.url }]) }, {
      resources: [resource('note://docs/readme')],
    });
    await app.mounts!.waitForConnections();
  });
  afterAll(async () => {
    await app?.mounts?.close();
    await downstream?.close();
  });
  let client: import('@modelcontextprotocol/client').Client | undefined;
  afterEach(async () => { await client?.close(); client = undefined; });

  test('is left out: reads get the app\'s own, and mount://status lists it as shadowed', async () => {
    const { Client } = await import('@modelcontextprotocol/client');
    client = new Client({ name: 'start-up-test', version: '1.0.0' });
    await client.connect(app.connectInProcess());
    const read = await client.readResource({ uri: 'note://docs/readme' });
    expect(read.contents).toEqual([{ uri: 'note://docs/readme', text: 'ours' }]);
    const { resources } = await client.listResources();
    expect(resources.filter((r) => r.uri === 'note://docs/readme')).toEqual([{ uri: 'note://docs/readme', name: 'mine' }]);
    const status = JSON.parse(((await client.readResource({ uri: MOUNT_STATUS_URI })).contents[0] as { text: string }).text);
    expect(status.mounts).toEqual([expect.objectContaining({ name: 'docs', state: 'ready', shadowed: ['note://docs/readme'] })]);
    expect(firstTool(await client.listTools())).toBe('chat_with_agent');
  });
});

const firstTool = (list: { tools: Array<{ name: string }> }) => list.tools[0]?.name;
