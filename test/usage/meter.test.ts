import { describe, expect, test } from 'vitest';
import { MAX_REPORTED_TOKENS, UsageMeter } from '../../lib/usage/meter.js';

describe('a call\'s usage meter', () => {
  test('sums every model request\'s tokens, cache counts included', () => {
    const meter = new UsageMeter();
    meter.record({ input: 100, output: 20, cachedInput: 40 });
    meter.record({ input: 50, output: 5, cacheWrite: 10 });
    expect(meter.total).toEqual({ modelRequests: 2, unknownRequests: 0, input: 150, output: 25, cachedInput: 40, cacheWrite: 10, estimated: false });
    expect(meter.complete).toBe(true);
  });

  test('a request whose upstream said nothing is unknown, never zero', () => {
    const meter = new UsageMeter();
    meter.record({ input: 10, output: 1 });
    meter.record(undefined);
    expect(meter.total).toMatchObject({ modelRequests: 2, unknownRequests: 1, input: 10, output: 1 });
    expect(meter.complete).toBe(false);
    expect(new UsageMeter().complete).toBe(false);
  });

  test.each([
    ['negative', { input: -5_000, output: 10 }],
    ['fractional', { input: 1.5, output: 10 }],
    ['not a number', { input: Number.NaN, output: 10 }],
    ['a string', { input: '12' as unknown as number, output: 10 }],
    ['missing output', { input: 12 }],
  ])('a %s count cannot lower the total: the request counts as unknown', (_kind, usage) => {
    const meter = new UsageMeter();
    meter.record({ input: 100, output: 100 });
    meter.record(usage);
    expect(meter.total).toMatchObject({ modelRequests: 2, unknownRequests: 1, input: 100, output: 100 });
  });

  test('an absurd count is held to the bound; a cache part larger than the input is held to the input', () => {
    const meter = new UsageMeter();
    meter.record({ input: 10, output: Number.MAX_SAFE_INTEGER, cachedInput: 999 });
    expect(meter.total).toMatchObject({ input: 10, output: MAX_REPORTED_TOKENS, cachedInput: 10 });
  });

  test('an estimate is labelled as one', () => {
    const meter = new UsageMeter();
    meter.record({ input: 1, output: 1 });
    expect(meter.total.estimated).toBe(false);
    meter.record({ input: 1, output: 1, estimated: true });
    expect(meter.total.estimated).toBe(true);
  });

  test('listeners hear each report\'s delta as it arrives, until they stop', () => {
    const meter = new UsageMeter();
    const heard: unknown[] = [];
    const stop = meter.onRecord((delta, total) => heard.push([delta, total.output]));
    meter.record({ input: 3, output: 4 });
    meter.record(undefined);
    stop();
    meter.record({ input: 1, output: 1 });
    expect(heard).toEqual([[{ input: 3, output: 4, known: true }, 4], [{ input: 0, output: 0, known: false }, 4]]);
  });
});
