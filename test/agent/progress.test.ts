import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createProgressReporter, FLUSH_MS, HEARTBEAT_MS } from '../../lib/agent/progress.js';

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

  test('a long silence sends a still-working notification; stop ends them', () => {
    const { sent, progress } = reporter();
    vi.advanceTimersByTime(HEARTBEAT_MS + HEARTBEAT_MS / 2);
    expect(sent.map((s) => s.message)).toEqual(['Still working…']);
    progress.stop();
    vi.advanceTimersByTime(HEARTBEAT_MS * 3);
    expect(sent).toHaveLength(1);
  });
});
