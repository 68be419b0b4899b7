import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { BudgetSpent, RequestBudget } from '../../lib/agent/budget.js';
import { Cancellation } from '../../lib/server/cancellation.js';
import { controllersMadeBy } from '../support/abort-controllers.js';

const LIMITS = { maxUpstreamCalls: 2, maxToolCalls: 2, maxParallel: 2, turnTimeoutMs: 1_000 };

describe('one request\'s budget', () => {
  beforeEach(() => vi.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => vi.restoreAllMocks());

  test('model calls past AGENT_MAX_UPSTREAM_CALLS are refused with an error naming the variable', async () => {
    const budget = new RequestBudget(LIMITS, 'research', new AbortController().signal);
    (await budget.start('research'))();
    (await budget.start('writer'))();
    const refused = await budget.start('writer').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetSpent);
    expect(refused).toMatchObject({ variable: 'AGENT_MAX_UPSTREAM_CALLS', message: 'Agent writer: this request spent its budget of 2 model calls (AGENT_MAX_UPSTREAM_CALLS); the turn was stopped.' });
    budget.close();
  });

  test('tool calls past AGENT_MAX_TOOL_CALLS_TOTAL are answered "not run"', () => {
    const budget = new RequestBudget(LIMITS, 'research', new AbortController().signal);
    expect(budget.spendToolCall('docs.echo')).toBeUndefined();
    expect(budget.spendToolCall('agent:writer')).toBeUndefined();
    expect(budget.spendToolCall('docs.echo')).toEqual({
      ok: false, text: 'Tool docs.echo was not run: this request spent its budget of 2 tool calls (AGENT_MAX_TOOL_CALLS_TOTAL).', limit: 'AGENT_MAX_TOOL_CALLS_TOTAL',
    });
    budget.close();
  });

  test('at most AGENT_MAX_PARALLEL_CALLS places are held at once; a place given back goes to the first in line', async () => {
    const budget = new RequestBudget({ ...LIMITS, maxUpstreamCalls: 10 }, 'research', new AbortController().signal);
    const first = await budget.place();
    await budget.place();
    const order: string[] = [];
    const third = budget.place().then((release) => (order.push('third'), release));
    const fourth = budget.place().then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // giving a place back twice gives back one
    await third;
    await Promise.resolve();
    expect(order).toEqual(['third']);
    (await third)();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    budget.close();
  });

  test('once the caller cancels nothing new starts, and calls waiting for a place are refused', async () => {
    const caller = new AbortController();
    const budget = new RequestBudget({ ...LIMITS, maxParallel: 1 }, 'research', caller.signal);
    await budget.place();
    const waiting = budget.place().then(() => 'placed', () => 'refused');
    caller.abort(new Error('gone'));
    expect(await waiting).toBe('refused');
    await expect(budget.start('research')).rejects.toThrow('Agent research: the call was cancelled.');
    await expect(budget.place()).rejects.toThrow('gone');
    budget.close();
  });

  test('the turn\'s clock aborts its signal at AGENT_TURN_TIMEOUT_MS, and work that ignores the signal is left behind', async () => {
    vi.useFakeTimers();
    try {
      const budget = new RequestBudget(LIMITS, 'research', new AbortController().signal);
      const late = budget.within(new Promise((resolve) => setTimeout(resolve, 5_000, 'late')));
      vi.advanceTimersByTime(1_000);
      expect(budget.timedOut).toBe(true);
      await expect(late).rejects.toThrow('Agent research: the turn ran longer than AGENT_TURN_TIMEOUT_MS (1000 ms) and was stopped.');
      await expect(budget.start('research')).rejects.toThrow('AGENT_TURN_TIMEOUT_MS');
      budget.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the budget's signal", () => {
  beforeEach(() => vi.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => vi.restoreAllMocks());

  test('is made only when read: a turn that never reads it still ends when its caller cancels', async () => {
    const caller = new Cancellation();
    let budget!: RequestBudget;
    const made = await controllersMadeBy(async () => {
      budget = new RequestBudget(LIMITS, 'research', caller);
      const work = budget.within(new Promise(() => undefined));
      caller.cancel(new Error('gone'));
      await expect(work).rejects.toThrow('gone');
      expect(budget.cancelled).toBe(true);
    });
    expect(made).toBe(0);
    expect(budget.signal.aborted).toBe(true);
    budget.close();
  });

  test('read before the end, it aborts with the caller\'s reason, and with the clock\'s at AGENT_TURN_TIMEOUT_MS', async () => {
    const caller = new Cancellation();
    const cancelled = new RequestBudget(LIMITS, 'research', caller);
    const { signal } = cancelled;
    caller.cancel('gone');
    expect(signal.reason).toBe('gone');
    cancelled.close();

    vi.useFakeTimers();
    try {
      const timed = new RequestBudget(LIMITS, 'research', new Cancellation());
      const late = timed.signal;
      vi.advanceTimersByTime(1_000);
      expect(late.aborted).toBe(true);
      expect(String(late.reason)).toContain('AGENT_TURN_TIMEOUT_MS');
      timed.close();
    } finally {
      vi.useRealTimers();
    }
  });

  test('a caller\'s cancel after the turn closed reaches nothing of it', () => {
    const caller = new Cancellation();
    const budget = new RequestBudget(LIMITS, 'research', caller);
    budget.close();
    caller.cancel('late');
    expect(budget.cancelled).toBe(false);
  });
});
