/**
 * What a call charged by use costs (lib/pay/price.ts): the tokens on its meter at the prices per million, in the
 * asset's smallest units, rounded up once on the total, never above the ceiling its payer signed.
 */

import { describe, expect, test } from 'vitest';
import { chargeFor, fromAtomic, parseUsd, toAtomic, type TokenPrices } from '../../lib/pay/price.js';
import { UsageMeter } from '../../lib/usage/meter.js';

const PRICES: TokenPrices = { input: '$0.15', output: '$0.60', max: '$0.10' };
const USDC = 6;
const CEILING = toAtomic(PRICES.max, USDC);

function used(...reports: Parameters<UsageMeter['record']>[0][]) {
  const meter = new UsageMeter();
  for (const report of reports) meter.record(report);
  return meter.total;
}

describe('the price of a call\'s tokens', () => {
  test('sums every model request of the call, then rounds up to the asset\'s smallest unit once', () => {
    // 1000 × $0.15/M + 1000 × $0.60/M = $0.00075 = 750 units; 1 more input token is $0.00000015, which rounds up to 1 unit.
    expect(chargeFor(used({ input: 600, output: 400 }, { input: 400, output: 600 }), PRICES, USDC, CEILING)).toEqual({ amount: 750n, basis: 'usage', estimated: false });
    expect(chargeFor(used({ input: 1001, output: 1000 }), PRICES, USDC, CEILING).amount).toBe(751n);
  });

  test('is held to the ceiling', () => {
    expect(chargeFor(used({ input: 10_000_000, output: 10_000_000 }), PRICES, USDC, CEILING)).toEqual({ amount: 100_000n, basis: 'usage', estimated: false });
  });

  test('is nothing for a call that made no model request or spent no token', () => {
    expect(chargeFor(used(), PRICES, USDC, CEILING)).toEqual({ amount: 0n, basis: 'nothing-used', estimated: false });
    expect(chargeFor(used({ input: 0, output: 0 }), PRICES, USDC, CEILING).amount).toBe(0n);
  });

  test('is the ceiling when any request\'s usage is unknown, and an upstream\'s negative report counts as unknown', () => {
    expect(chargeFor(used({ input: 10, output: 10 }, undefined), PRICES, USDC, CEILING)).toEqual({ amount: CEILING, basis: 'ceiling-usage-unknown', estimated: false });
    expect(chargeFor(used({ input: -1_000_000, output: 10 }), PRICES, USDC, CEILING).basis).toBe('ceiling-usage-unknown');
  });

  test('says when the usage it priced is an estimate', () => {
    expect(chargeFor(used({ input: 1000, output: 1000, estimated: true }), PRICES, USDC, CEILING)).toMatchObject({ amount: 750n, estimated: true });
  });

  test('works for an asset with more decimals than the prices are kept at', () => {
    expect(chargeFor(used({ input: 1, output: 0 }), { ...PRICES, input: '$1' }, 20, 10n ** 30n).amount).toBe(10n ** 14n);
  });
});

describe('USD amounts', () => {
  test('are read exactly and written back', () => {
    expect(parseUsd('0.000001')).toBe('$0.000001');
    expect(parseUsd('$1e3')).toBeUndefined();
    expect(parseUsd('-1')).toBeUndefined();
    expect(toAtomic('$0.0000015', USDC)).toBe(2n);
    expect(fromAtomic(15_600n, USDC)).toBe('$0.0156');
    expect(fromAtomic(0n, USDC)).toBe('$0');
    expect(fromAtomic(2_500_000n, USDC)).toBe('$2.5');
  });
});
