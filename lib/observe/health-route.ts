/**
 * Where the health probe is served and how long it may wait; the probe itself (lib/observe/health.ts) is
 * imported on the first probe, so the MCP function's cold start does not carry it.
 */

import { healthOf, type ActiveMode } from '../auth/modes/index.js';
import type { HealthSources } from './health.js';

type Env = Record<string, string | undefined>;

/** vercel.json rewrites both to the MCP function, so a cron that probes them keeps that function warm. */
export const HEALTH_PATHS: readonly string[] = ['/health', '/api/health'];
/** The query vercel.json's rewrites add, for a platform that passes the rewritten URL. */
const HEALTH_QUERY = 'health';
export const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;
/** A store read or metadata fetch slower than this is as good as down for an MCP call. */
const MAX_HEALTH_TIMEOUT_MS = 60_000;

/** MCP_HEALTH_TIMEOUT_MS: the longest each probe waits, in ms. */
export function readHealthTimeout(env: Env = process.env): number {
  const raw = env.MCP_HEALTH_TIMEOUT_MS;
  if (raw === undefined || raw === '') return DEFAULT_HEALTH_TIMEOUT_MS;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < 1 || value > MAX_HEALTH_TIMEOUT_MS) {
    throw new TypeError(`MCP_HEALTH_TIMEOUT_MS must be a whole number of milliseconds from 1 to ${MAX_HEALTH_TIMEOUT_MS}, got "${raw}".`);
  }
  return value;
}

/** A GET or HEAD of a health path (or of the rewrite's query, where the platform passes the rewritten URL). */
export function isHealthProbe(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const url = new URL(request.url);
  return HEALTH_PATHS.includes(url.pathname) || url.searchParams.has(HEALTH_QUERY);
}

/** What the probe looks at; `signIn` is the sign-in modes on (lib/auth/modes), each saying how it is probed. */
export type HealthOptions = Omit<HealthSources, 'auth'> & { signIn?: readonly ActiveMode[] };

/** The probe's handler, loading lib/observe/health.ts on first use. */
export function createLazyHealthHandler({ signIn, ...options }: HealthOptions): (request: Request) => Promise<Response> {
  const auth = healthOf(signIn ?? []);
  let handler: Promise<(request: Request) => Promise<Response>> | undefined;
  return async (request) => {
    handler ??= import('./health.js').then(({ createHealthHandler }) => createHealthHandler({ ...options, auth }));
    return (await handler)(request);
  };
}
