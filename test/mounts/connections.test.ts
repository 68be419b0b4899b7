/**
 * `waitForConnections({ timeout })`: resolves when every pending connection has connected and listed,
 * failed, or the timeout passed; never rejects; 0 or negative returns at once; safe to call concurrently;
 * leaves no timer behind. The clock is frozen: no test sleeps.
 */

import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createConnectionTracker } from '../../lib/mounts/connections.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Whether `promise` has settled, after letting pending callbacks run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('waitForConnections', () => {
  test('resolves at once when nothing is pending', async () => {
    const tracker = createConnectionTracker();
    expect(await isSettled(tracker.waitForConnections())).toBe(true);
  });

  test('waits until every pending connection has settled, then forgets them', async () => {
    const tracker = createConnectionTracker();
    const a = deferred();
    const b = deferred();
    tracker.track('a', a.promise);
    tracker.track('b', b.promise);
    const wait = tracker.waitForConnections();

    a.resolve();
    expect(await isSettled(wait)).toBe(false);
    b.resolve();
    expect(await isSettled(wait)).toBe(true);
    expect(tracker.pending()).toEqual([]);
  });

  test('never rejects when a connection fails', async () => {
    const tracker = createConnectionTracker();
    const ok = deferred();
    const broken = deferred();
    tracker.track('ok', ok.promise);
    tracker.track('broken', broken.promise);
    const wait = tracker.waitForConnections({ timeout: 1_000 });

    broken.reject(new Error('ECONNREFUSED'));
    ok.resolve();

    await expect(wait).resolves.toBeUndefined();
  });

  test.each([0, -1])('a timeout of %i returns at once, with connections still pending', async (timeout) => {
    const tracker = createConnectionTracker();
    tracker.track('slow', new Promise(() => undefined));
    expect(await isSettled(tracker.waitForConnections({ timeout }))).toBe(true);
    expect(tracker.pending()).toEqual(['slow']);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a timeout bounds the wait and leaves no timer behind', async () => {
    const tracker = createConnectionTracker();
    tracker.track('slow', new Promise(() => undefined));
    const wait = tracker.waitForConnections({ timeout: 5_000 });

    await vi.advanceTimersByTimeAsync(4_999);
    expect(await isSettled(wait)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await isSettled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('connections that settle before the timeout clear the timer', async () => {
    const tracker = createConnectionTracker();
    const fast = deferred();
    tracker.track('fast', fast.promise);
    const wait = tracker.waitForConnections({ timeout: 60_000 });
    expect(vi.getTimerCount()).toBe(1);

    fast.resolve();

    expect(await isSettled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('concurrent callers each wait on the same connections', async () => {
    const tracker = createConnectionTracker();
    const slow = deferred();
    tracker.track('slow', slow.promise);
    const short = tracker.waitForConnections({ timeout: 100 });
    const long = tracker.waitForConnections({ timeout: 10_000 });
    const unbounded = tracker.waitForConnections();

    await vi.advanceTimersByTimeAsync(100);
    expect(await isSettled(short)).toBe(true);
    expect(await isSettled(long)).toBe(false);

    slow.resolve();
    expect(await isSettled(long)).toBe(true);
    expect(await isSettled(unbounded)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a retry replaces the attempt it follows; the old one settling does not forget the new one', async () => {
    const tracker = createConnectionTracker();
    const first = deferred();
    const retry = deferred();
    tracker.track('docs', first.promise);
    tracker.track('docs', retry.promise);

    first.reject(new Error('gone'));
    await vi.advanceTimersByTimeAsync(0);

    expect(tracker.pending()).toEqual(['docs']);
    const wait = tracker.waitForConnections();
    expect(await isSettled(wait)).toBe(false);
    retry.resolve();
    expect(await isSettled(wait)).toBe(true);
  });

  test('an aborted signal ends the wait and removes its listener', async () => {
    const tracker = createConnectionTracker();
    tracker.track('slow', new Promise(() => undefined));
    const controller = new AbortController();
    const wait = tracker.waitForConnections({ timeout: 60_000, signal: controller.signal });

    controller.abort();

    expect(await isSettled(wait)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('an infinite timeout waits without a timer', async () => {
    const tracker = createConnectionTracker();
    const slow = deferred();
    tracker.track('slow', slow.promise);
    const wait = tracker.waitForConnections({ timeout: Infinity });
    expect(vi.getTimerCount()).toBe(0);
    expect(await isSettled(wait)).toBe(false);
    slow.resolve();
    expect(await isSettled(wait)).toBe(true);
  });
});
