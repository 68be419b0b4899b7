/**
 * Questions a mounted server asks during a forwarded call (elicitation, sampling) reach our caller over real
 * HTTP, for each era of caller and mount: official SDK servers as mounts, the official v2 client as caller.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { startAskingLegacyMount, startAskingModernMount, type AskingMount } from '../support/asking-mounts.js';
import { startMountedApp, type MountedApp } from '../support/mounts.js';
import { postModern } from '../support/rpc.js';
import { answerElicitation, answerSampling, connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';

let legacyMount: AskingMount;
let modernMount: AskingMount;
let mounted: MountedApp;
let url: string;

beforeAll(async () => {
  [legacyMount, modernMount] = await Promise.all([startAskingLegacyMount(), startAskingModernMount()]);
  mounted = startMountedApp([{ name: 'old', url: legacyMount.url }, { name: 'new', url: modernMount.url, era: 'auto' }], { waitMs: 10_000 });
  url = (await mounted.http()).mcpUrl;
  await mounted.mounts.waitForConnections();
  expect(mounted.mounts.status().map((s) => s.state)).toEqual(['ready', 'ready']);
});

afterAll(async () => {
  await mounted.close();
  await Promise.all([legacyMount.close(), modernMount.close()]);
});

/** The official client over HTTP on `era`, declaring `capabilities`, answering name "ada" and model text "Paris". */
async function caller(era: Era, capabilities: ClientCapabilities) {
  const client = createV2Client(era, capabilities);
  const elicited = capabilities.elicitation ? answerElicitation(client, (params): Record<string, string> => (/colour/i.test(params.message) ? { colour: 'blue' } : { name: 'ada' })) : [];
  const sampled = capabilities.sampling ? answerSampling(client, 'Paris') : [];
  await connectHttp(client, url);
  return { client, elicited, sampled };
}

const lastDeclared = (mount: AskingMount) => mount.declared.at(-1);

describe('a 2025 mount (SDK 1.x McpServer) asks', () => {
  test('a 2025-11-25 caller that declared elicitation is asked on its stream, and the mount gets its answer', async () => {
    const { client, elicited } = await caller('legacy', { elicitation: {} });
    const result = await client.callTool({ name: 'old.ask_name', arguments: {} });
    expect(firstText(result)).toBe('hello ada (accept)');
    expect(elicited).toMatchObject([{ message: 'What is your name?' }]);
    expect(lastDeclared(legacyMount)).toEqual({ elicitation: { form: {} } });
    await client.close();
  });

  test('a 2025-11-25 caller that declared sampling answers the mount\'s sampling request', async () => {
    const { client, sampled } = await caller('legacy', { sampling: {} });
    const result = await client.callTool({ name: 'old.ask_model', arguments: {} });
    expect(firstText(result)).toBe('the model said Paris');
    expect(sampled).toHaveLength(1);
    await client.close();
  });

  test('the mount is told only what the caller declared, so it cannot elicit from a caller that only samples', async () => {
    const { client } = await caller('legacy', { sampling: {} });
    const result = await client.callTool({ name: 'old.ask_name', arguments: {} });
    expect(lastDeclared(legacyMount)).toEqual({ sampling: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/could not ask: .*elicitation/);
    await client.close();
  });

  test('a mount that asks a caller who declared nothing gets a -32601 naming the capability, and the caller reads why', async () => {
    const { client } = await caller('legacy', {});
    const result = await client.callTool({ name: 'old.ask_anyway', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('could not ask: MCP error -32601: Mount old asked for elicitation/create, but the caller of this call did not declare the elicitation capability');
    await client.close();
  });

  test('a 2026-07-28 caller gets a clear error: a 2025 mount\'s question cannot be answered statelessly', async () => {
    const { client, elicited } = await caller('modern', { elicitation: {} });
    const result = await client.callTool({ name: 'old.ask_name', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe('Mount old asked for elicitation/create over the 2025 wire, which a 2026-07-28 caller cannot answer statelessly ' +
      '(the mounted server waits on a live stream; the caller answers with a new request that may reach another instance). ' +
      'Mount a server that speaks 2026-07-28 with era "auto", or call over 2025-11-25.');
    expect(elicited).toEqual([]);
    await client.close();
  });
});

describe('a 2026-07-28 mount (SDK 2.x) asks through MRTR', () => {
  test('a 2026-07-28 caller gets input_required carrying the mount\'s questions, and its retry reaches the mount with the mount\'s state', async () => {
    const capabilities = { elicitation: {} };
    const first = await (await postModern(url, 1, 'tools/call', { name: 'new.ask_name', arguments: {} }, { capabilities })).json();
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: { message: 'What is your name?' } } },
    });
    // Ours, signed: the mount's own state travels inside it, never bare.
    expect(first.result.requestState).not.toContain('mount-state-1');
    expect(lastDeclared(modernMount)).toEqual({ elicitation: { form: {} } });

    const retry = await (await postModern(url, 2, 'tools/call', {
      name: 'new.ask_name', arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'ada' } } },
      requestState: first.result.requestState,
    }, { capabilities })).json();
    expect(retry.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hello ada (state mount-state-1)' }] });
  });

  test('a retry whose requestState was tampered with is refused with -32602 before it reaches the mount', async () => {
    const capabilities = { elicitation: {} };
    const first = await (await postModern(url, 3, 'tools/call', { name: 'new.ask_name', arguments: {} }, { capabilities })).json();
    const calls = modernMount.declared.length;
    const retry = await (await postModern(url, 4, 'tools/call', {
      name: 'new.ask_name', arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'ada' } } },
      requestState: `${first.result.requestState}x`,
    }, { capabilities })).json();
    expect(retry.error).toMatchObject({ code: -32602, message: 'requestState is invalid, expired, or was issued for another request.' });
    expect(modernMount.declared.length).toBe(calls);
  });

  test.each([
    ['modern', 'new.ask_twice', 'ada likes blue'],
    ['legacy', 'new.ask_twice', 'ada likes blue'],
    ['modern', 'new.ask_name', 'hello ada (state mount-state-1)'],
    ['legacy', 'new.ask_name', 'hello ada (state mount-state-1)'],
  ] as const)('a %s caller answers %s through the official client, every round', async (era, tool, expected) => {
    const { client, elicited } = await caller(era, { elicitation: {} });
    const result = await client.callTool({ name: tool, arguments: {} });
    expect(firstText(result)).toBe(expected);
    expect(elicited.length).toBe(tool === 'new.ask_twice' ? 2 : 1);
    await client.close();
  });

  test.each(['modern', 'legacy'] as const)('a %s caller answers the mount\'s sampling request', async (era) => {
    const { client, sampled } = await caller(era, { sampling: {} });
    const result = await client.callTool({ name: 'new.ask_model', arguments: {} });
    expect(firstText(result)).toBe('the model said Paris');
    expect(sampled).toHaveLength(1);
    expect(lastDeclared(modernMount)).toEqual({ sampling: {} });
    await client.close();
  });

  test.each(['modern', 'legacy'] as const)('a %s caller that declared nothing gets an error naming the capability, never a hang', async (era) => {
    const { client } = await caller(era, {});
    // The mount is told no capabilities, so the SDK 2.x server refuses itself (-32021); its words reach the caller.
    await expect(client.callTool({ name: 'new.ask_name', arguments: {} })).rejects.toThrow(
      "Mount new answered -32021: Cannot request input 'name' (elicitation/create): the request's client capabilities do not declare the required capability");
    expect(lastDeclared(modernMount)).toEqual({});
    await client.close();
  });
});
