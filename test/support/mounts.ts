/**
 * Test support for mounts: an app with a local tool and the given mounts (a cold start: its connections
 * begin when it is built), and official v2 clients on it, in-process or over loopback HTTP.
 */

import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, type App } from '../../lib/app.js';
import type { CallSlots } from '../../lib/limits/concurrency.js';
import { createMounts, type MountInput, type Mounts } from '../../lib/mounts/index.js';
import type { Principal } from '../../lib/server/context.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { connectHttp, createV2Client, type Era } from './sdk.js';
import { startTestServer, type TestServer } from './server.js';

/** A local tool that answers with the principal it runs as. */
export const whoami: ToolDefinition = {
  name: 'whoami',
  description: 'Returns the principal the call runs as.',
  run: (_args, ctx) => ({
    content: [{ type: 'text', text: ctx.principal?.subject ?? '(anonymous)' }],
    structuredContent: { principal: ctx.principal ?? null },
  }),
};

export interface MountedApp {
  app: App;
  mounts: Mounts;
  /** A v2 client in-process as `principal`, with its log notifications collected. */
  connect(era: Era, principal?: Principal): Promise<{ client: Client; logs: unknown[] }>;
  /** The app's MCP endpoint on a loopback HTTP server (started on first use). */
  http(): Promise<TestServer>;
  close(): Promise<void>;
}

export function startMountedApp(inputs: MountInput[], options: { waitMs: number; tools?: ToolDefinition[]; calls?: CallSlots }): MountedApp {
  const mounts = createMounts({ mounts: inputs, waitMs: options.waitMs });
  const app = createApp({
    definitions: [{ tools: options.tools ?? [whoami] }],
    mounts,
    stateSecret: 'm'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    calls: options.calls,
  });
  const clients: Client[] = [];
  let server: Promise<TestServer> | undefined;
  return {
    app,
    mounts,
    async connect(era, principal) {
      const client = createV2Client(era);
      const logs: unknown[] = [];
      client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
      clients.push(client);
      await client.connect(app.connectInProcess(principal));
      return { client, logs };
    },
    http: () => (server ??= startTestServer(createMcpHandler(app))),
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      if (server) await (await server).close();
      await mounts.close();
    },
  };
}

/** A v2 client over HTTP to `url`, with extra request headers. */
export async function connectOverHttp(era: Era, url: string): Promise<Client> {
  const client = createV2Client(era);
  await connectHttp(client, url);
  return client;
}

/** Tool names of a list, sorted. */
export const namesOf = (items: Array<{ name: string }>) => items.map((i) => i.name).sort();
