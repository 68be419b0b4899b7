/**
 * An agent's key goes only to the origin configured for it (docs/architecture.md rule 16): an A2A card that names
 * its interface on another origin (here another loopback port, over http, as an internal address would be) is a
 * redirect by other means. The call is refused before anything is sent there, the caller reads a fixed sentence and
 * the operator a line naming the origin. Real A2A agents built with @a2a-js/sdk, official MCP SDK clients.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { AgentError } from '../../../lib/agent/types.js';
import { postUpstream } from '../../../lib/agent/upstream/request.js';
import { startA2aAgent, type A2aAgent } from '../../support/a2a-server.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat } from './setup.js';

const KEY = 'a2a-key-never-elsewhere-0123456789';
/** The agent the card names: a real A2A server on another port, which must never hear from us. */
let elsewhere: A2aAgent;
/** The configured agent, whose card points at `elsewhere`. */
let pointing: A2aAgent;
let h: ToolsHarness;
beforeAll(async () => {
  elsewhere = await startA2aAgent();
  pointing = await startA2aAgent({ interfaceAt: elsewhere.url });
  h = await startToolsHarness({
    agents: { pointer: { name: 'Pointer', format: 'a2a', url: pointing.url, apiKeyEnv: 'A2A_KEY' } },
    env: { A2A_KEY: KEY },
  });
});
afterAll(async () => {
  await h.close();
  await Promise.all([elsewhere.close(), pointing.close()]);
});

describe.each(['legacy', 'modern'] as const)('an a2a agent whose card names another origin, on the %s wire', (era) => {
  test('the call is refused with a fixed sentence; the other origin receives nothing, so never the key; the log names it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const client = await h.connect(era, 'alice', [CHAT_SCOPE]);
      const { result, text } = await chat(client, 'pointer', `where does my key go on ${era}?`);
      expect(result.isError).toBe(true);
      expect(text).toBe("Agent pointer: the upstream named another origin to send its requests to; agent-mcp sends an agent's requests and key only to the origin configured for it.");
      // The card was read from the configured origin; nothing, with or without Authorization, reached the other.
      expect(pointing.cardReads()).toBeGreaterThan(0);
      expect(elsewhere.requests).toEqual([]);
      expect(elsewhere.cardReads()).toBe(0);
      if (era === 'legacy') {
        // The first refusal is logged at once, naming where the card pointed (later ones are counted into a line a minute).
        expect(warn).toHaveBeenCalledWith(`[agent-mcp] refused 1 request to an origin other than the agent's configured one (latest: agent pointer: ${elsewhere.url}, configured ${pointing.url})`);
      }
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the rule, where every format\'s request goes through (request.ts)', () => {
  test('an agent configured on https is never called over http, even on the same host and port: not a connection is opened', async () => {
    let connections = 0;
    const plain = createServer((_req, res) => void res.end('{}'));
    plain.on('connection', () => void connections++);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const port = (plain.address() as AddressInfo).port;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const target = { agentId: 'secure', url: `http://127.0.0.1:${port}/v1/chat/completions`, origin: `https://127.0.0.1:${port}`,
        headers: { authorization: `Bearer ${KEY}` }, timeoutMs: 5_000, maxReplyBytes: 1 << 20 };
      const refused = await postUpstream(target, { hello: 1 }, new AbortController().signal).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(AgentError);
      expect((refused as AgentError).message).toBe("Agent secure: the upstream named another origin to send its requests to; agent-mcp sends an agent's requests and key only to the origin configured for it.");
      // The same target on its own origin is called: the server is reachable, so the refusal above was the rule's.
      const reached = await postUpstream({ ...target, origin: `http://127.0.0.1:${port}` }, { hello: 1 }, new AbortController().signal);
      for await (const _chunk of reached.chunks()) { /* read to the end */ }
      expect(connections).toBe(1);
    } finally {
      warn.mockRestore();
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
