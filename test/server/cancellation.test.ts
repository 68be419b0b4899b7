import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { Cancellation } from '../../lib/server/cancellation.js';

describe("a call's cancellation", () => {
  test('is aborted with its reason when read after the cancel', () => {
    const cancellation = new Cancellation();
    const reason = new Error('Cancelled by the client.');
    cancellation.cancel(reason);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
  });

  test('aborts a signal already handed out, once: a second cancel keeps the first reason', () => {
    const cancellation = new Cancellation();
    const { signal } = cancellation;
    expect(signal.aborted).toBe(false);
    cancellation.cancel('first');
    cancellation.cancel('second');
    expect(signal.reason).toBe('first');
  });

  test('does not ask for a linked signal given as a function until its own is read', () => {
    let asked = 0;
    const linked = new AbortController();
    const cancellation = new Cancellation(() => (asked++, linked.signal));
    expect(asked).toBe(0);
    const { signal } = cancellation;
    expect(asked).toBe(1);
    linked.abort('client gone');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('client gone');
  });

  test('takes the reason of a linked signal that aborted before the read', () => {
    const linked = new AbortController();
    linked.abort('closed');
    expect(new Cancellation(linked.signal).signal.reason).toBe('closed');
  });

  test('leaves no listener on a linked signal that outlives the call once disposed', () => {
    const transport = new AbortController();
    const calls = Array.from({ length: 3 }, () => new Cancellation(transport.signal));
    for (const call of calls) void call.signal;
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(3);
    for (const call of calls) call.dispose();
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
    expect(calls.every((call) => !call.signal.aborted)).toBe(true);
  });
});
