/**
 * Test support: a real MCP server to mount whose tools run as tasks, built with the official v1 SDK's experimental
 * tasks (`@modelcontextprotocol/sdk` 1.x McpServer, `registerToolTask`, InMemoryTaskStore; the 2025-11-25 wire,
 * SEP-1686), stateful sessions on a loopback port of this process. `job` takes `ms` and answers then (or fails with
 * a tool error when `fail` is set); `must_task` is the same with taskSupport "required".
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import * as z from 'zod';
import { readBody } from './downstream.js';

export interface TaskMount {
  url: string;
  /** JSON-RPC methods received, in arrival order, with their params. */
  requests: Array<{ method: string; params?: Record<string, any> }>;
  close(): Promise<void>;
}

function buildServer(taskStore: InMemoryTaskStore): McpServer {
  const server = new McpServer({ name: 'task-mount', version: '1.0.0' }, {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
  });
  for (const [name, taskSupport] of [['job', 'optional'], ['must_task', 'required']] as const) {
    server.experimental.tasks.registerToolTask(name, {
      description: `Works for ms milliseconds as a task (${taskSupport}).`,
      inputSchema: { ms: z.number(), fail: z.boolean().optional() },
      execution: { taskSupport },
    }, {
      async createTask({ ms, fail }, { taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl ?? 60_000 });
        setTimeout(() => {
          void store.getTask(task.taskId).then((now) => {
            if (now?.status !== 'working') return;
            return store.storeTaskResult(task.taskId, fail ? 'failed' : 'completed', {
              content: [{ type: 'text', text: fail ? `job failed after ${ms} ms` : `job done after ${ms} ms` }],
              ...(fail ? { isError: true } : {}),
            });
          });
        }, ms);
        return { task };
      },
      getTask: (_args, { taskId, taskStore: store }) => store.getTask(taskId) as never,
      getTaskResult: (_args, { taskId, taskStore: store }) => store.getTaskResult(taskId) as never,
    });
  }
  return server;
}

export async function startTaskMount(): Promise<TaskMount> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: TaskMount['requests'] = [];
  const taskStore = new InMemoryTaskStore();
  const http: Server = createServer(async (request, response) => {
    try {
      const body = request.method === 'POST' ? await readBody(request) : undefined;
      const messages = Array.isArray(body) ? body : body ? [body] : [];
      for (const m of messages) if (typeof m?.method === 'string') requests.push({ method: m.method, params: m.params });
      const sessionId = request.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
        await buildServer(taskStore).connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      taskStore.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
