/**
 * Rate settings as written in the environment: `<requests>/<window>` such as `60/1m`, `600/1h`, `10/30s`
 * (units s, m, h, d), or `off`. Parsed once at start-up; anything else throws naming the variable.
 */

export interface Rate {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  /** The setting as written, normalised (e.g. `60/1m`), for logs and messages. */
  text: string;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const RATE = /^(\d{1,9})\s*\/\s*(\d{0,9})\s*([smhd])$/;

/** The rate in `value`; undefined when it is absent, empty or `off`. `what` is counted: requests, or a budget's tokens. */
export function parseRate(name: string, value: string | undefined, what: 'requests' | 'tokens' = 'requests'): Rate | undefined {
  const text = value?.trim().toLowerCase();
  if (!text || text === 'off') return undefined;
  const match = RATE.exec(text);
  const limit = Number(match?.[1]);
  const count = match?.[2] ? Number(match[2]) : 1;
  if (!match || limit < 1 || count < 1) {
    const example = what === 'requests' ? '60/1m' : '100000/1d';
    throw new TypeError(`${name} must look like ${example} (${what} per window; s, m, h or d) or off, got "${value}".`);
  }
  const unit = match[3] as keyof typeof UNIT_MS;
  return { limit, windowMs: count * UNIT_MS[unit], text: `${limit}/${count}${unit}` };
}
