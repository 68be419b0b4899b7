import { describe, expect, test } from 'vitest';
import { chatWithAgentTool } from '../../lib/agent/chat-tool.js';
import { demoAgent, DEMO_AGENT } from '../../lib/agent/demo.js';
import type { Agent } from '../../lib/agent/types.js';
import type { ToolResult } from '../../lib/server/registry.js';
import { Caller } from '../../lib/server/caller.js';
import { createRequestContext } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';
import type { EnterRequest, LeaveRequest } from '../../lib/store/types.js';

/** A real memory store that notes each operation, since with Upstash each one is a network round trip. */
class NotingStore extends MemoryStore {
  readonly ops: string[] = [];
  /** Every key an operation named. */
  readonly keys: string[] = [];
  override get<T>(key: string) { this.ops.push(`get ${key}`); return super.get<T>(key); }
  override set(key: string, value: unknown, ttlMs: number) { this.ops.push(`set ${key}`); return super.set(key, value, ttlMs); }
  override append(key: string, values: unknown[], ttlMs: number) { this.ops.push(`append ${key}`); return super.append(key, values, ttlMs); }
  override range<T>(key: string, from: number) { this.ops.push(`range ${key}`); return super.range<T>(key, from); }
  override getMany(keys: string[]) { this.ops.push(`getMany ${keys.join(' ')}`); return super.getMany(keys); }
  override enter(request: EnterRequest) {
    this.ops.push(`enter ${JSON.stringify(request)}`);
    const { once, turn, read = [] } = request;
    this.keys.push(...(once ? [once.result, once.claim] : []), ...(turn ? [turn.queue, turn.done] : []), ...read);
    return super.enter(request);
  }
  override leave(request: LeaveRequest) {
    this.ops.push(`leave ${JSON.stringify(request)}`);
    const { set = [], delete: gone = [], turn } = request;
    this.keys.push(...set.map((p) => p.key), ...gone, ...(turn ? [turn.queue, turn.done] : []));
    return super.leave(request);
  }
}

const agent: Agent = { profile: { ...DEMO_AGENT, kind: 'in-process', paid: false }, keepsHistory: true, reply: demoAgent };

/** One server's key: conversation ids it issues verify on its later calls. */
const keyring = createKeyring(undefined);

async function chat(store: NotingStore, args: { message: string; session_id?: string }) {
  const tool = chatWithAgentTool({ agents: [agent], timeoutMs: 5_000 });
  const call = { era: 'legacy' as const, protocolVersion: '2025-11-25', clientCapabilities: {}, store, caller: new Caller(undefined, 'a caller') };
  const ctx = createRequestContext(call, 1, 'tools/call', {}, { keyring });
  store.ops.length = 0;
  const result = (await tool.run(args, ctx)) as ToolResult;
  return { result, ops: [...store.ops] };
}

describe('store round trips of a chat call', () => {
  test('a call that starts a conversation claims its retry key, then saves the turn: two operations, no queue, no history read', async () => {
    const { result, ops } = await chat(new NotingStore(), { message: 'hello' });
    expect(result.isError).toBeUndefined();
    expect(ops.map((op) => op.split(' ')[0])).toEqual(['enter', 'leave']);
    expect(ops.filter((op) => /queue|"read":\["conv:/.test(op))).toEqual([]);
    expect(ops[1]).toContain('"set":[{"key":"conv:');
  });

  test('the retry key names the message by its digest: the message text is in no store key', async () => {
    const message = `a long message ${'x'.repeat(10_000)}`;
    const store = new NotingStore();
    const { ops } = await chat(store, { message });
    expect(ops[0]).toContain('once-claim:');
    expect(store.keys.some((key) => key.includes(message.slice(0, 40)))).toBe(false);
    expect(store.keys.some((key) => key.startsWith('once-claim:'))).toBe(true);
  });

  test('a call that continues a conversation takes its turn, reads its history and saves in one enter and one leave', async () => {
    const store = new NotingStore();
    const first = await chat(store, { message: 'hello' });
    const { session_id } = first.result.structuredContent as { session_id: string };
    const { result, ops } = await chat(store, { message: 'again', session_id });
    expect((result.structuredContent as { reply: string }).reply).toContain('Turn 2');
    expect(ops.map((op) => op.split(' ')[0])).toEqual(['enter', 'leave']);
    expect(ops[0]).toMatch(/"turn":\{"queue":"queue:session:.*"read":\["conv:/);
    expect(ops[1]).toMatch(/"turn":\{"queue":"queue:session:/);
  });
});
