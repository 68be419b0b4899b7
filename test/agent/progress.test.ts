import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createProgressReporter, FLUSH_MS, HEARTBEAT_MS, progressOf } from '../../lib/agent/progress.js';
import { createRunReport } from '../../lib/tasks/report.js';

describe('streaming text as progress', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function reporter() {
    const sent: Array<{ progress: number; message?: string }> = [];
    const progress = createProgressReporter({ progress: (p, _t, m) => sent.push({ progress: p, message: m }) });
    return { sent, progress };
  }

  test('chunks arriving faster than the flush interval are coalesced into one notification', () => {
    const { sent, progress } = reporter();
    vi.advanceTimersByTime(FLUSH_MS);
    progress.text('Hel');
    progress.text('lo, ');
    progress.text('world');
    vi.advanceTimersByTime(FLUSH_MS);
    progress.stop();
    expect(sent.map((s) => s.message)).toEqual(['Hel', 'lo, world']);
  });

  test('progress always increases, status notes included', () => {
    const { sent, progress } = reporter();
    progress.note('Asking…');
    progress.text('a');
    vi.advanceTimersByTime(FLUSH_MS);
    progress.note('done');
    vi.advanceTimersByTime(FLUSH_MS);
    progress.stop();
    const values = sent.map((s) => s.progress);
    expect(values).toEqual([1, 2, 3]);
  });

  test('many status notes within the flush interval become one notification, in order with the text around them', () => {
    const { sent, progress } = reporter();
    progress.note('Asking Research…');
    for (let i = 1; i <= 16; i++) progress.note(`research: calling agent:writer #${i}…`);
    progress.text('Working on it');
    vi.advanceTimersByTime(FLUSH_MS);
    for (let i = 1; i <= 3; i++) progress.note(`research → writer: calling notes.add #${i}…`);
    vi.advanceTimersByTime(FLUSH_MS);
    progress.stop();
    expect(sent.map((s) => s.message)).toEqual([
      'Asking Research…',
      'research: calling agent:writer #16… (and 15 more)',
      'Working on it',
      'research → writer: calling notes.add #3… (and 2 more)',
    ]);
  });

  test('reporters in flight share two timers (the flush tick and the heartbeat tick), however many there are; none is left once they stop', () => {
    const calls = Array.from({ length: 100 }, () => reporter());
    for (const { progress } of calls) {
      progress.text('a');
      progress.text('b');
    }
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(FLUSH_MS);
    for (const { sent } of calls) expect(sent.map((s) => s.message)).toEqual(['a', 'b']);
    for (const { progress } of calls) progress.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a long silence sends a still-working notification; stop ends them', () => {
    const { sent, progress } = reporter();
    vi.advanceTimersByTime(HEARTBEAT_MS + HEARTBEAT_MS / 2);
    expect(sent.map((s) => s.message)).toEqual(['Still working…']);
    progress.stop();
    vi.advanceTimersByTime(HEARTBEAT_MS * 3);
    expect(sent).toHaveLength(1);
  });
});

describe("a call's reporter", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('without a progress token nothing is sent and no timer is set, yet a run report still gets the text and the latest step', () => {
    const sent: unknown[] = [];
    const report = createRunReport();
    const progress = progressOf({ sendsProgress: false, progress: (...args) => void sent.push(args), report });
    progress.note('Asking Demo agent…');
    progress.text('Hel');
    progress.text('lo');
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    progress.flush();
    progress.stop();
    expect(sent).toEqual([]);
    expect(report.soFar()).toMatchObject({ text: 'Hello', note: 'Asking Demo agent…' });
  });

  test('with a progress token and a run report, both get the text', () => {
    const sent: Array<string | undefined> = [];
    const report = createRunReport();
    const progress = progressOf({ sendsProgress: true, progress: (_p, _t, m) => void sent.push(m), report });
    progress.note('Asking…');
    progress.text('Hi');
    vi.advanceTimersByTime(FLUSH_MS);
    progress.stop();
    expect(sent).toEqual(['Asking…', 'Hi']);
    expect(report.soFar()).toMatchObject({ text: 'Hi', note: 'Asking…' });
  });
});
