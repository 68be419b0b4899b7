/** Small statistics for benchmark samples. */

export const sorted = (xs) => [...xs].sort((a, b) => a - b);

/** The p-quantile (0..1) by nearest rank. */
export function quantile(xs, p) {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))];
}

export const median = (xs) => quantile(xs, 0.5);

/** Rounds to `digits` decimals. */
export const round = (x, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
