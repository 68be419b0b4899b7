/**
 * Checks for configuration read from JSON environment variables (AGENTS, MCP_MOUNTS). Written by hand rather
 * than with zod: configuration is read on every cold start, and zod's import alone costs more than the rest
 * of a cold start. A check answers `field: why` for the first problem it sees, or undefined.
 */

export type Check = (entry: Record<string, unknown>) => string | undefined;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** An environment variable's name, as `tokenEnv` or `apiKeyEnv` give it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `key` is absent or passes `valid`; else `key: why`. */
export const optional = (key: string, valid: (value: unknown) => boolean, why: string): Check => (entry) =>
  entry[key] === undefined || valid(entry[key]) ? undefined : `${key}: ${why}`;

/** `key` is present and passes `valid`. */
export const required = (key: string, valid: (value: unknown) => boolean, why: string): Check => (entry) =>
  entry[key] !== undefined && valid(entry[key]) ? undefined : `${key}: ${why}`;

export const isNonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

export const matches = (pattern: RegExp) => (value: unknown): boolean => typeof value === 'string' && pattern.test(value);

export const isPositiveInteger = (value: unknown): boolean => Number.isInteger(value) && (value as number) > 0;

export const oneOf = (values: readonly string[]) => (value: unknown): boolean => values.includes(value as string);

/**
 * The first problem with `entry`, as `field: why`: not an object, a key outside `keys` (with the nearest key, when
 * one is near: `apikey_env` → `apiKeyEnv`), or a failed check.
 */
export function findProblem(entry: unknown, keys: ReadonlySet<string>, checks: Check[], what: string): string | undefined {
  if (!isRecord(entry)) return '(value): must be an object';
  const unknown = Object.keys(entry).find((key) => !keys.has(key));
  if (unknown !== undefined) {
    const near = nearestName(unknown, keys);
    // `headers` for `headersEnv`: the value itself where the setting takes the variables that hold it.
    const why = near !== undefined && folded(near) === `${folded(unknown)}env` ? ' (it names the environment variables that hold the values)' : '';
    return `${unknown}: is not ${what}${near === undefined ? '' : `; did you mean "${near}"?${why}`}`;
  }
  for (const check of checks) {
    const problem = check(entry);
    if (problem) return problem;
  }
  return undefined;
}

const folded = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The name of `names` a mistyped `name` most likely meant: the same letters in another case or spelling
 * (`apikey_env`, `api-key-env`), else the same with the `Env` of a setting that names variables (`headers` →
 * `headersEnv`), else the closest within a third of its length in edits (a transposition counts one: `modle`);
 * undefined when none is that near.
 */
export function nearestName(name: string, names: Iterable<string>): string | undefined {
  const wanted = folded(name);
  let best: { name: string; distance: number } | undefined;
  let env: string | undefined;
  for (const candidate of names) {
    const distance = editDistance(wanted, folded(candidate));
    if (distance === 0) return candidate;
    if (folded(candidate) === `${wanted}env`) env = candidate;
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (env !== undefined) return env;
  return best && best.distance <= Math.max(1, Math.floor(wanted.length / 3)) ? best.name : undefined;
}

/** Insertions, deletions, substitutions and transpositions of neighbours that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
