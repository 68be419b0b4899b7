import { describe, expect, test } from 'vitest';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { parseRate } from '../../lib/limits/rate.js';

describe('rate settings', () => {
  test.each([
    ['60/1m', { limit: 60, windowMs: 60_000, text: '60/1m' }],
    ['600/1h', { limit: 600, windowMs: 3_600_000, text: '600/1h' }],
    ['10/30s', { limit: 10, windowMs: 30_000, text: '10/30s' }],
    ['1000/1d', { limit: 1000, windowMs: 86_400_000, text: '1000/1d' }],
    [' 5 / m ', { limit: 5, windowMs: 60_000, text: '5/1m' }],
  ])('%j is a rate', (value, rate) => {
    expect(parseRate('RATE_LIMIT_IP', value)).toEqual(rate);
  });

  test.each([undefined, '', 'off', 'OFF'])('%j turns the limit off', (value) => {
    expect(parseRate('RATE_LIMIT_IP', value)).toBeUndefined();
  });

  test.each(['60', '60 per minute', '0/1m', '60/0m', '60/1w', '-1/1m', '1.5/1m'])('%j fails at start-up naming the variable', (value) => {
    expect(() => parseRate('RATE_LIMIT_PRINCIPAL', value)).toThrow(new TypeError(
      `RATE_LIMIT_PRINCIPAL must look like 60/1m (requests per window; s, m, h or d) or off, got "${value}".`));
  });
});

describe('limits from the environment', () => {
  test('both limits off (or absent) means no limit step at all', () => {
    expect(createLimitsFromEnv({}, undefined)).toBeUndefined();
    expect(createLimitsFromEnv({ RATE_LIMIT_IP: 'off', RATE_LIMIT_PRINCIPAL: 'off' }, undefined)).toBeUndefined();
  });

  test('a limit that is off adds no step; one that is on says where it counts', () => {
    const limits = createLimitsFromEnv({ RATE_LIMIT_PRINCIPAL: '600/1h' }, undefined)!;
    expect(limits.byIp).toBeUndefined();
    expect(limits.byPrincipal).toBeTypeOf('function');
    expect(limits.summary).toBe('rate limits: ip off, principal 600/1h (counted per instance in memory; on a Redis fault: fail open)');
  });

  test('RATE_LIMIT_ON_ERROR is open or closed, and anything else fails at start-up', () => {
    expect(createLimitsFromEnv({ RATE_LIMIT_IP: '1/1m', RATE_LIMIT_ON_ERROR: 'closed' }, undefined)!.summary).toContain('fail closed');
    expect(() => createLimitsFromEnv({ RATE_LIMIT_IP: '1/1m', RATE_LIMIT_ON_ERROR: 'maybe' }, undefined))
      .toThrow(new TypeError('RATE_LIMIT_ON_ERROR must be open or closed, got "maybe".'));
  });
});
