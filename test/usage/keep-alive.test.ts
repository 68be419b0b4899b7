/**
 * The usage counters' write goes out after the response (lib/usage/counter.ts): on Vercel the instance is kept until
 * it lands (lib/http/keep-alive.ts), off Vercel nothing asks to be kept. Whether it is on Vercel is read as the
 * counter is made, once.
 */

import { afterEach, describe, expect, test, vi } from 'vitest';
import { Observation } from '../../lib/observe/observation.js';
import { REFUSAL } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { createUsageCounter } from '../../lib/usage/counter.js';

const REQUEST_CONTEXT = Symbol.for('@vercel/request-context');

/** The Vercel runtime's request context, faked: the platform is the edge these tests cannot reach. */
function fakeRequestContext(): Promise<unknown>[] {
  const kept: Promise<unknown>[] = [];
  (globalThis as Record<symbol, unknown>)[REQUEST_CONTEXT] = { get: () => ({ waitUntil: (work: Promise<unknown>) => kept.push(work) }) };
  return kept;
}

/** A request refused by a rate limit, counted by `count`. */
function countRefusal(count: ReturnType<typeof createUsageCounter>) {
  const request = new Request('http://localhost/mcp', { method: 'POST' });
  const observation = new Observation(request);
  observation.noteRefusal(REFUSAL.rateLimit);
  count(observation, 429, request);
}

const counter = () => createUsageCounter({ store: new MemoryStore(), keyring: createKeyring('a-secret-of-this-deployment'), trustForwarded: false });

afterEach(() => {
  vi.unstubAllEnvs();
  delete (globalThis as Record<symbol, unknown>)[REQUEST_CONTEXT];
});

describe('the usage counters\' write after the response', () => {
  test('on Vercel keeps the instance until it lands, each counted request', async () => {
    vi.stubEnv('VERCEL', '1');
    const kept = fakeRequestContext();
    const count = counter();
    countRefusal(count);
    countRefusal(count);
    await vi.waitFor(() => expect(kept).toHaveLength(2), { timeout: 5_000 });
    await Promise.all(kept);
  });

  test('off Vercel asks nothing to be kept', async () => {
    vi.stubEnv('VERCEL', '');
    const kept = fakeRequestContext();
    countRefusal(counter());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(kept).toEqual([]);
  });
});
