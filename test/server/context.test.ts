import { describe, expect, test } from 'vitest';
import { createRequestContext } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';

describe('the request context', () => {
  test('a tool may take it apart: progress, log and supports work detached, and the signal is read through', () => {
    const sent: unknown[] = [];
    const ctx = createRequestContext({
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      store: new MemoryStore(),
      outbound: { write: (message) => void sent.push(message) },
    }, 1, 'tools/call', { _meta: { progressToken: 'p1' } }, { keyring: createKeyring(undefined) });
    const { progress, log, supports, signal } = ctx;
    progress(1, 2, 'half');
    log('warning', 'careful');
    expect(supports('sampling')).toBe(true);
    expect(signal.aborted).toBe(false);
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'careful' } },
    ]);
  });
});
