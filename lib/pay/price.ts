/**
 * What a paid call costs (docs/payments.md "Charging by use (upto)"): a fixed price per call (x402 `exact`), and, where token
 * prices are set, a price per million input and output tokens up to a ceiling per call (x402 `upto`). The price of a
 * call's tokens is read from its one meter (lib/usage/meter.ts; docs/architecture.md rule 17), never from a format.
 *
 * Amounts are exact: USD decimals are read as integers (no floating point), and a token price is rounded up to the
 * asset's smallest unit once, on the call's total, then held to the ceiling the payer signed.
 */

import type { UsageTotal } from '../usage/meter.js';

/** A USD amount as x402 writes prices, e.g. `$0.01`. */
export type UsdPrice = `$${string}`;

/** Prices per million tokens, and the most one call may cost: what `upto`'s `accepts` advertises as its amount. */
export interface TokenPrices {
  input: UsdPrice;
  output: UsdPrice;
  max: UsdPrice;
}

/** What one paid thing costs: `exact` always, `upto` too when token prices are set. */
export interface Offer {
  price: UsdPrice;
  tokens?: TokenPrices;
}

/** How a settled `upto` amount was arrived at. */
export type ChargeBasis =
  /** The tokens the call's upstreams reported (an estimate when the meter says so). */
  | 'usage'
  /** Some model request's usage is unknown: the call settles the ceiling its payer signed. */
  | 'ceiling-usage-unknown'
  /** No model request was made, or none spent a token: nothing is settled. */
  | 'nothing-used';

export interface Charge {
  /** In the asset's smallest unit, at most the ceiling. */
  amount: bigint;
  basis: ChargeBasis;
  /** True when the usage priced is an estimate (the meter's `estimated`). */
  estimated: boolean;
}

const USD = /^\$?(\d{1,12})(?:\.(\d{1,18}))?$/;
/** Token prices are kept at this many decimals of a dollar: finer than any asset x402 settles in. */
const SCALE_DIGITS = 18;
const MILLION = 1_000_000n;

/** `text` as a USD price, or undefined when it is not one (`$0.01`, `0.01`; at most 18 decimals). */
export function parseUsd(text: string | undefined): UsdPrice | undefined {
  const match = USD.exec(text?.trim() ?? '');
  if (!match) return undefined;
  return `$${match[1]}${match[2] ? `.${match[2]}` : ''}`;
}

/** A USD price as an integer count of 10^-digits dollars, rounded up. */
function scaled(price: UsdPrice, digits: number): bigint {
  const [whole, fraction = ''] = price.slice(1).split('.');
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  const rest = fraction.slice(digits);
  const value = BigInt(whole!) * 10n ** BigInt(digits) + BigInt(kept || '0');
  return /[1-9]/.test(rest) ? value + 1n : value;
}

/** A USD price in an asset's smallest unit (USDC: 6 decimals), rounded up. */
export function toAtomic(price: UsdPrice, decimals: number): bigint {
  return scaled(price, decimals);
}

/** An amount in an asset's smallest unit as a USD price (`1234` at 6 decimals → `$0.001234`). */
export function fromAtomic(amount: bigint, decimals: number): UsdPrice {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `$${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * What a call that used `usage` pays under `prices`, in the asset's smallest unit, never above `ceiling` (the amount
 * its payer signed). Unknown usage settles the ceiling: the upstream was used for an amount nobody can say, and the
 * payer agreed to that much. A call that made no model request, or whose requests spent no token, pays nothing.
 */
export function chargeFor(usage: UsageTotal, prices: TokenPrices, decimals: number, ceiling: bigint): Charge {
  const estimated = usage.estimated;
  if (usage.unknownRequests > 0) return { amount: ceiling, basis: 'ceiling-usage-unknown', estimated };
  if (usage.modelRequests === 0 || usage.input + usage.output === 0) return { amount: 0n, basis: 'nothing-used', estimated };
  const total = BigInt(usage.input) * scaled(prices.input, SCALE_DIGITS) + BigInt(usage.output) * scaled(prices.output, SCALE_DIGITS);
  // total is in 10^-18 dollars per million tokens; the asset counts 10^-decimals dollars.
  const divisor = MILLION * 10n ** BigInt(Math.max(SCALE_DIGITS - decimals, 0));
  if (decimals > SCALE_DIGITS) return held((total * 10n ** BigInt(decimals - SCALE_DIGITS) + MILLION - 1n) / MILLION, ceiling, estimated);
  return held((total + divisor - 1n) / divisor, ceiling, estimated);
}

const held = (amount: bigint, ceiling: bigint, estimated: boolean): Charge =>
  ({ amount: amount < ceiling ? amount : ceiling, basis: 'usage', estimated });
