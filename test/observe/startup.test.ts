/**
 * What a deployed function says when an instance starts (lib/observe/startup.ts): the MCP function's first request
 * builds the app and logs one JSON line of what is on, so the function log stays JSON lines; MCP_LOG=debug adds
 * every setting and bound, MCP_LOG=off says nothing.
 */

import { afterEach, expect, test, vi } from 'vitest';

const request = () => new Request('http://localhost/mcp', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

/** The lines the function writes to stdout over its first two requests, with MCP_LOG as given. */
async function coldStart(level: string): Promise<string[]> {
  vi.restoreAllMocks();
  vi.resetModules();
  vi.stubEnv('MCP_LOG', level);
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true); // the request log's lines, tested in request-log
  const { default: fn } = await import('../../api/mcp.js');
  for (let i = 0; i < 2; i++) expect((await fn.fetch(request())).status).toBe(200);
  return log.mock.calls.map((args) => String(args[0]));
}

test('the first request of an instance logs one JSON line of what is on; later ones do not', async () => {
  const starts = (await coldStart('on')).map((line) => JSON.parse(line)).filter((line) => line.msg === 'agent-mcp start');
  expect(starts).toHaveLength(1);
  expect(starts[0]).toMatchObject({
    agents: expect.stringMatching(/^demo /),
    store: expect.stringMatching(/^memory, this process only/),
    auth: expect.stringMatching(/^none/),
    limits: expect.stringContaining('concurrent calls per caller'),
  });
  expect(starts[0]).not.toHaveProperty('details');
});

test('MCP_LOG=debug adds the details; MCP_LOG=off logs nothing', async () => {
  const [debug] = (await coldStart('debug')).map((line) => JSON.parse(line)).filter((line) => line.msg === 'agent-mcp start');
  expect(debug.details).toEqual(expect.arrayContaining([expect.stringContaining('(MCP_MAX_BODY_BYTES)')]));
  expect(await coldStart('off')).toEqual([]);
});
