import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, test } from 'vitest';
import { Cancellation } from '../../lib/server/cancellation.js';
import { controllersMadeBy } from '../support/abort-controllers.js';

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

describe('a chain of cancellations (request, call, task, turn)', () => {
  const listeners: Array<() => void> = [];
  afterEach(() => listeners.splice(0).forEach((off) => off()));

  test('a listener at its end hears a cancel at its root, and no AbortSignal is made on the way', async () => {
    let asked = 0;
    const request = new AbortController();
    const heard: unknown[] = [];
    const made = await controllersMadeBy(() => {
      const root = new Cancellation(() => (asked++, request.signal));
      const call = new Cancellation(root);
      const turn = new Cancellation(new Cancellation(call));
      expect(asked).toBe(0);
      listeners.push(turn.onCancel((reason) => heard.push(reason)));
    });
    // The request's signal is asked for on the next turn of the event loop, and only while something listens.
    expect(asked).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    request.abort('client gone');
    expect(made).toBe(0);
    expect(heard).toEqual(['client gone']);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
  });

  test('a call over within the turn it started in never asks for the request\'s signal; a client gone before the next turn is heard then', async () => {
    let asked = 0;
    const request = new AbortController();
    const quick = new Cancellation(new Cancellation(() => (asked++, request.signal)));
    quick.onCancel(() => undefined)();
    quick.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(0);

    const root = new Cancellation(() => (asked++, request.signal));
    const heard: unknown[] = [];
    new Cancellation(root).onCancel((reason) => heard.push(reason));
    request.abort('gone at once');
    expect(heard).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    expect(heard).toEqual(['gone at once']);
  });

  test('a call over before the next turn leaves nothing waiting for it: work that never yields keeps no calls alive', () => {
    const request = new AbortController();
    const pending = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Immediate').length;
    const before = pending();
    for (let i = 0; i < 1_000; i++) {
      const call = new Cancellation(new Cancellation(() => request.signal));
      call.onCancel(() => undefined);
      call.dispose();
    }
    // Each call asked for the request's signal on the next turn, and called it off when nobody listened any more: no
    // turn is left holding a call (and its request) until the event loop comes round.
    expect(pending()).toBe(before);
    const open = new Cancellation(new Cancellation(() => request.signal));
    open.onCancel(() => undefined);
    expect(pending()).toBe(before + 1);
  });

  test('reads a cancel made before anything listened, without listening', () => {
    const root = new Cancellation();
    const call = new Cancellation(root);
    root.cancel('first');
    expect(call.cancelled).toBe(true);
    expect(call.reason).toBe('first');
    const heard: unknown[] = [];
    call.onCancel((reason) => heard.push(reason));
    expect(heard).toEqual(['first']);
    expect(call.signal.reason).toBe('first');
  });

  test('a link disposed of is gone for good: the root\'s cancel reaches neither a listener nor a signal read later', () => {
    const root = new Cancellation();
    const work = new Cancellation(root);
    const heard: unknown[] = [];
    work.onCancel((reason) => heard.push(reason));
    work.dispose();
    const late = new Cancellation(root);
    late.dispose();
    root.cancel('request over');
    expect(heard).toEqual([]);
    expect(work.cancelled).toBe(false);
    expect(late.signal.aborted).toBe(false);
    work.cancel('its own');
    expect(heard).toEqual(['its own']);
  });

  test('a listener removed is not called; the others are, once', () => {
    const call = new Cancellation();
    const heard: string[] = [];
    const off = call.onCancel(() => heard.push('removed'));
    call.onCancel(() => heard.push('kept'));
    off();
    call.cancel('x');
    call.cancel('y');
    expect(heard).toEqual(['kept']);
  });
});
