/**
 * One contract for every agent format, as @upstash/ratelimit runs one suite against every store: agent-mcp, built by
 * the production path (createDefaultApp) with two API-key callers, serves one agent of the format on a stand-in;
 * official MCP SDK clients call chat_with_agent over HTTP on loopback, and the suite checks what docs/agents.md
 * promises of every format: two turns, progress, cancel, errors scrubbed, the reply bound, isolation, usage.
 * Turns, isolation and errors run on both wires; progress, cancel and the bound on one, since a format is handed the
 * same turn on either (test/agent/failures.test.ts checks cancellation on both wires).
 * A format's test file calls `describeAgentFormat(format, standIn)` with its stand-in (stand-in.ts).
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../../api/mcp.js';
import { createDefaultApp } from '../../../lib/app.js';
import type { Format } from '../../../lib/agent/upstream/index.js';
import { bearer, keyLine, mintTestKey } from '../../support/api-keys.js';
import { connectHttp, createV2Client, type Era } from '../../support/sdk.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { chat, until } from '../upstream/setup.js';
import { USAGE_META, type UsageMeta } from '../../../lib/usage/report.js';
import { CONTRACT_ERROR, CONTRACT_KEY, type RunningStandIn, type StandIn } from './stand-in.js';

/** AGENT_MAX_REPLY_BYTES of the suite's server: small, so a reply over it costs little to send. */
const CONTRACT_REPLY_CAP = 64 * 1024;
const ERAS = ['legacy', 'modern'] as const;
const CALLERS = { alice: mintTestKey(), bob: mintTestKey() };
type Caller = keyof typeof CALLERS;

/** A short marker that makes a message unique within a run. */
const fresh = () => crypto.randomUUID().slice(0, 8);
const matches = (text: string, expected: string | RegExp) => (typeof expected === 'string' ? expect(text).toBe(expected) : expect(text).toMatch(expected));
const logged = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((call) => call.map(String).join(' ')).join('\n');

export function describeAgentFormat(format: Format, declared: StandIn): void {
  describe(`the ${format} format keeps the agent contract`, () => {
    const id = `${format}-agent`;
    let standIn: RunningStandIn;
    let server: TestServer;
    const clients: Client[] = [];

    beforeAll(async () => {
      standIn = await declared.start();
      const app = createDefaultApp({
        MCP_LOG: 'off',
        MCP_API_KEYS: Object.entries(CALLERS).map(([name, key]) => keyLine(name, key)).join('\n'),
        RATE_LIMIT_IP: 'off',
        RATE_LIMIT_PRINCIPAL: 'off',
        CONTRACT_KEY,
        AGENT_TIMEOUT_MS: '10000',
        AGENT_MAX_REPLY_BYTES: String(CONTRACT_REPLY_CAP),
        AGENTS: JSON.stringify([{ id, format, apiKeyEnv: 'CONTRACT_KEY', ...standIn.settings }]),
      });
      server = await startTestServer(createMcpHandler(app));
    }, 30_000);
    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await server?.close();
      await standIn?.close?.();
    });

    async function connect(era: Era, caller: Caller = 'alice'): Promise<Client> {
      const client = createV2Client(era);
      await connectHttp(client, server.mcpUrl, bearer(CALLERS[caller]));
      clients.push(client);
      return client;
    }

    describe.each(ERAS)('on the %s wire', (era) => {
      test('two turns: the second is answered knowing the first', async () => {
        const client = await connect(era);
        const [one, two] = [`one ${fresh()}`, `two ${fresh()}`];
        const first = await chat(client, id, one);
        expect(first.result.isError).toBeFalsy();
        matches(first.text, standIn.says.reply(one, 1));
        expect(first.result.structuredContent).toMatchObject({ agent_id: id, reply: first.text, session_id: first.sessionId });
        const second = await chat(client, id, two, first.sessionId);
        expect(second.sessionId).toBe(first.sessionId);
        matches(second.text, standIn.says.reply(two, 2));
      });

      test('isolation: a session_id is its caller\'s; another caller with it reaches nothing, and its own conversation starts afresh', async () => {
        const alice = await connect(era, 'alice');
        const bob = await connect(era, 'bob');
        const opening = `mine ${fresh()}`;
        const mine = await chat(alice, id, opening);
        const intrusion = `let me in ${fresh()}`;
        const stolen = await chat(bob, id, intrusion, mine.sessionId);
        expect(stolen.result.isError).toBe(true);
        expect(stolen.text).toMatch(/session_id is not a conversation this server started for you/);
        expect(await standIn.received(intrusion)).toBe(false);
        // Bob's conversation is his own from its first turn; Alice's goes on as if Bob had never tried.
        const own = `my own ${fresh()}`;
        matches((await chat(bob, id, own)).text, standIn.says.reply(own, 1));
        const next = `still mine ${fresh()}`;
        matches((await chat(alice, id, next, mine.sessionId)).text, standIn.says.reply(next, 2));
      });

      describe("errors: the upstream's text reaches the operator's log, never the caller", () => {
        test('an HTTP 500 whose body holds secrets is a fixed sentence naming the agent and the status', async () => {
          const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
          try {
            const { result, text } = await chat(await connect(era), id, standIn.says.serverError);
            expect(result.isError).toBe(true);
            expect(text).toBe(`Agent ${id} failed: the upstream answered HTTP 500.`);
            for (const secret of CONTRACT_ERROR.secrets) expect(JSON.stringify(result)).not.toContain(secret);
            const log = logged(error);
            expect(log).toContain(`agent ${id}: the upstream answered HTTP 500`);
            expect(log).toContain('db.internal.corp:5432');
            expect(log).not.toContain(CONTRACT_KEY);
          } finally {
            error.mockRestore();
          }
        });

        if (declared.noErrorInReply) test.skip(`an error inside a reply: none in this format (${declared.noErrorInReply})`);
        else test('an error inside a reply is a fixed sentence naming the agent', async () => {
          const fault = standIn.says.errorInReply!;
          const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
          try {
            const { result, text } = await chat(await connect(era), id, fault.message);
            expect(result.isError).toBe(true);
            expect(text).toBe(`Agent ${id} reported an error in its reply.`);
            expect(JSON.stringify(result)).not.toContain(fault.secret);
            expect(logged(error)).toContain(fault.secret);
          } finally {
            error.mockRestore();
          }
        });
      });
    });

    const pieces = declared.progress === 'streams' ? 'in pieces while the upstream writes it' : 'whole, as the upstream answers it';
    test(`progress: the reply's text reaches the caller as progress notifications, ${pieces}, before the result`, async () => {
      const client = await connect('modern');
      const message = standIn.says.streamed(fresh());
      const notes: Array<{ progress: number; message: string }> = [];
      let answered = false;
      const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: id, message } }, {
        onprogress: (p) => void notes.push({ progress: p.progress, message: answered ? '(after the result)' : p.message ?? '' }),
      });
      answered = true;
      expect(result.isError).toBeFalsy();
      const reply = (result.structuredContent as { reply: string }).reply;
      const values = notes.map((n) => n.progress);
      expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
      // Status notes (a tool the upstream runs, an A2A status) are lines of their own; the pieces of text are the reply's.
      const texts = notes.map((n) => n.message).filter((text) => text !== '' && reply.includes(text));
      expect(texts.join('')).toBe(reply);
      if (declared.progress === 'streams') expect(texts.length).toBeGreaterThanOrEqual(2);
      else expect(texts).toEqual([reply]);
    });

    const when = declared.progress === 'streams' ? 'at its first progress notification' : 'once the upstream has the request';
    test(`cancel: a call abandoned ${when} ends its upstream request`, async () => {
      const client = await connect('legacy');
      const message = standIn.says.long(fresh());
      const controller = new AbortController();
      let progressed = false;
      const call = client.callTool({ name: 'chat_with_agent', arguments: { agent_id: id, message } }, {
        signal: controller.signal,
        onprogress: () => void (progressed = true),
      }).then(() => 'answered', () => 'aborted');
      await until(async () => (declared.progress === 'streams' ? progressed : standIn.received(message)));
      controller.abort();
      expect(await call).toBe('aborted');
      await until(() => standIn.aborted(message));
    });

    test('bounds: a reply over AGENT_MAX_REPLY_BYTES is a clear isError, and the server serves the next call', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const client = await connect('modern');
        const { result, text } = await chat(client, id, standIn.says.huge(4 * CONTRACT_REPLY_CAP));
        expect(result.isError).toBe(true);
        expect(text).toBe(`Agent ${id}: the agent's reply exceeded ${CONTRACT_REPLY_CAP} bytes.`);
        const after = `after the bound ${fresh()}`;
        matches((await chat(client, id, after)).text, standIn.says.reply(after, 1));
      } finally {
        warn.mockRestore();
      }
    });

    // The tokens the upstream reports reach the call's one meter and its result's _meta (docs/architecture.md rule 17);
    // a format with no way to say them counts its requests as unknown, never as zero tokens.
    describe.each(ERAS)('on the %s wire', (era) => {
      const usage = declared.usage;
      test(usage === 'reported'
        ? 'usage: the tokens the upstream reports are counted, in the result\'s _meta'
        : `usage: unknown, never zero (${usage.unknown})`, async () => {
        const client = await connect(era);
        const { result } = await chat(client, id, `usage ${fresh()}`);
        expect(result.isError).toBeFalsy();
        const said = (result._meta as Record<string, UsageMeta> | undefined)?.[USAGE_META];
        expect(said?.modelRequests).toBeGreaterThanOrEqual(1);
        if (usage === 'reported') {
          expect(said).toMatchObject({ unknownRequests: 0, estimated: false });
          expect(said!.input).toBeGreaterThan(0);
          expect(said!.output).toBeGreaterThan(0);
        } else {
          expect(said).toMatchObject({ unknownRequests: said!.modelRequests, input: 0, output: 0 });
        }
      });
    });
  });
}
