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

/** The first problem with `entry`, as `field: why`: not an object, a key outside `keys`, or a failed check. */
export function findProblem(entry: unknown, keys: ReadonlySet<string>, checks: Check[], what: string): string | undefined {
  if (!isRecord(entry)) return '(value): must be an object';
  const unknown = Object.keys(entry).find((key) => !keys.has(key));
  if (unknown !== undefined) return `${unknown}: is not ${what}`;
  for (const check of checks) {
    const problem = check(entry);
    if (problem) return problem;
  }
  return undefined;
}
