/** Types of scripts/npm-cache.mjs (a plain Node script, so that `npm test` can run it before any TypeScript). */
export const NODE22_VERSION: string;
export const INSPECTOR_VERSION: string;
export function ensureCached(dir: string, spec: string, probe: string): string;
export function ensureNode(major: number, options?: { quick?: boolean }): string | undefined;
export function ensureNode22(): string;
export function ensureInspector(): string;
