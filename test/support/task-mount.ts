/**
 * Test support: a real MCP server to mount whose tools run as tasks, built with the official v1 SDK's experimental
 * tasks (`@modelcontextprotocol/sdk` 1.x McpServer, `registerToolTask`, InMemoryTaskStore; the 2025-11-25 wire,
 * SEP-1686), stateful sessions on a loopback port of this process. `job` takes `ms` and answers then (or fails with
 * a tool error when `fail` is set); `must_task` is the same with taskSupport "required".
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import * as z from 'zod';
import { listenOnLoopback, openSdkSession, readBody } from './downstream.js';

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
  const { http, port } = await listenOnLoopback(async (request, response) => {
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    const messages = Array.isArray(body) ? body : body ? [body] : [];
    for (const m of messages) if (typeof m?.method === 'string') requests.push({ method: m.method, params: m.params });
    const sessionId = request.headers['mcp-session-id'];
    const transport = (typeof sessionId === 'string' ? sessions.get(sessionId) : undefined) ?? await openSdkSession(sessions, buildServer(taskStore));
    await transport.handleRequest(request, response, body);
  });
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
