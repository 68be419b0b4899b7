/**
 * Refusals on a shared store are held (lib/usage/held.ts) so that a flood of refused requests costs no command each:
 * they go with the next counted call's tally, or on their own within FLUSH_MS when no counted call follows. A real
 * redis-server behind the Upstash REST bridge; the flush's timer is faked, so the test waits no 10 s of wall time.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { Observation } from '../../lib/observe/observation.js';
import { REFUSAL } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import { createUsageCounter } from '../../lib/usage/counter.js';
import { FLUSH_MS } from '../../lib/usage/held.js';
import { readUsage } from '../../lib/usage/read.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

let redis: SharedRedis;
beforeAll(async () => {
  redis = await startSharedRedis();
}, 30_000);
afterAll(() => redis?.stop());
afterEach(() => vi.useRealTimers());

/** A request refused before its body was read (401), as the endpoint hands it to the counter when it is done. */
function refuse(counter: ReturnType<typeof createUsageCounter>): void {
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST' });
  counter(new Observation(request), 401, request);
}

describe('refusals held on a shared store', () => {
  test(`go out on their own within FLUSH_MS (${FLUSH_MS} ms) when no counted call follows`, async () => {
    const store = new UpstashStore(redis.config);
    expect(store.shared).toBe(true);
    const counter = createUsageCounter({ store, keyring: createKeyring('h'.repeat(32)), trustForwarded: false });
    const signIn = async () => (await readUsage(store, 'hour')).refusals[REFUSAL.signIn] ?? 0;
    const before = await signIn();
    const written = redis.bridge.requests.length;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    for (let i = 0; i < 3; i++) refuse(counter);
    await counter.settled();
    vi.advanceTimersByTime(FLUSH_MS - 1);
    await counter.settled();
    // Held: not one command yet.
    expect(redis.bridge.requests.length).toBe(written);
    vi.advanceTimersByTime(1);
    vi.useRealTimers();
    await counter.settled();
    expect(redis.bridge.requests.length).toBeGreaterThan(written);
    expect(await signIn()).toBe(before + 3);
  });
});
