import { describe, expect, test } from 'vitest';
import { chatWithAgentTool } from '../../lib/agent/chat-tool.js';
import { demoAgent, DEMO_AGENT } from '../../lib/agent/demo.js';
import type { Agent } from '../../lib/agent/types.js';
import type { ToolResult } from '../../lib/server/registry.js';
import { createRequestContext } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';

/** A real memory store that notes each operation, since with Upstash each one is a network round trip. */
class NotingStore extends MemoryStore {
  readonly ops: string[] = [];
  override get<T>(key: string) { this.ops.push(`get ${key}`); return super.get<T>(key); }
  override set(key: string, value: unknown, ttlMs: number) { this.ops.push(`set ${key}`); return super.set(key, value, ttlMs); }
  override append(key: string, values: unknown[], ttlMs: number) { this.ops.push(`append ${key}`); return super.append(key, values, ttlMs); }
  override range<T>(key: string, from: number) { this.ops.push(`range ${key}`); return super.range<T>(key, from); }
}

const agent: Agent = { profile: { ...DEMO_AGENT, kind: 'in-process', paid: false }, keepsHistory: true, reply: demoAgent };

/** One server's key: conversation ids it issues verify on its later calls. */
const keyring = createKeyring(undefined);

async function chat(store: NotingStore, args: { message: string; session_id?: string }) {
  const tool = chatWithAgentTool({ agents: [agent], timeoutMs: 5_000 });
  const call = { era: 'legacy' as const, protocolVersion: '2025-11-25', clientCapabilities: {}, store, caller: 'a caller' };
  const ctx = createRequestContext(call, 1, 'tools/call', {}, { keyring });
  store.ops.length = 0;
  const result = (await tool.run(args, ctx)) as ToolResult;
  return { result, ops: [...store.ops] };
}

describe('store round trips of a chat call', () => {
  test('a call that starts a conversation neither loads history nor queues behind earlier turns', async () => {
    const { result, ops } = await chat(new NotingStore(), { message: 'hello' });
    expect(result.isError).toBeUndefined();
    expect(ops.filter((op) => /queue|get conv:/.test(op))).toEqual([]);
    expect(ops.filter((op) => op.startsWith('set conv:'))).toHaveLength(1);
  });

  test('the retry key names the message by its digest: the message text is in no store key', async () => {
    const message = `a long message ${'x'.repeat(10_000)}`;
    const { ops } = await chat(new NotingStore(), { message });
    expect(ops.some((op) => op.includes('once-claim:'))).toBe(true);
    expect(ops.filter((op) => op.includes(message.slice(0, 40)))).toEqual([]);
  });

  test('a call that continues a conversation takes its turn in the session and reads its history', async () => {
    const store = new NotingStore();
    const first = await chat(store, { message: 'hello' });
    const { session_id } = first.result.structuredContent as { session_id: string };
    const { result, ops } = await chat(store, { message: 'again', session_id });
    expect((result.structuredContent as { reply: string }).reply).toContain('Turn 2');
    expect(ops.some((op) => op.startsWith('append queue:'))).toBe(true);
    expect(ops.some((op) => op.startsWith('get conv:'))).toBe(true);
  });
});
