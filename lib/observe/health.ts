/**
 * The health probe (docs/observability.md "Observability"; routed by lib/observe/health-route.ts): the version, the store in
 * use and whether it answers one read, whether the auth issuer answers, and each mount's state. Every probe is
 * bounded by MCP_HEALTH_TIMEOUT_MS. It says nothing secret: no key, token, store URL or mount URL; the issuer is
 * named, as the protected-resource metadata already names it.
 *
 * 200 with `ok`, or `degraded` when a mount is down; 503 with `down` when the store or the issuer does not
 * answer, since then no call can be served.
 */

// Types only from modules on the start path: a value import would make the bundler split that module into a
// chunk the MCP function then loads at start (bench/cold-start.mjs measures it).
import type { HealthMode } from '../auth/modes/mode.js';
import type { Mounts } from '../mounts/mounts.js';
import type { Store } from '../store/types.js';

/** The key read to see that the store answers; nothing writes it. */
const PROBE_KEY = 'agent-mcp:health';

export interface HealthSources {
  name: string;
  version: string;
  store: Store;
  /**
   * How callers sign in (lib/auth/modes healthOf): the first mode on, with the issuer to probe when it has one (the
   * URLs that answer for it, or the search for its key set through its metadata, which also says when the metadata
   * names another issuer), and the flags of the modes beside it (`apiKeys`). Absent when auth is off.
   */
  auth?: HealthMode & { flags: string[] };
  mounts?: Mounts;
  timeoutMs: number;
}

interface Probe {
  ok: boolean;
  ms: number;
  /** `timeout`, `unavailable`, `HTTP <status>`, `issuer mismatch` or `no jwks_uri`; never the cause's text, which may name hosts. */
  error?: string;
}

export interface Health {
  status: 'ok' | 'degraded' | 'down';
  name: string;
  version: string;
  store: { kind: 'upstash' | 'memory' } & Probe;
  /**
   * null when auth is off; `issuer`, `built-in` or `api-keys`, and `apiKeys: true` beside another mode. A mode with
   * nothing to probe (keys, the built-in server's key) is ok.
   */
  auth: (({ mode: string; issuer: string } & Probe) | { mode: string; ok: true }) & { [flag: string]: unknown } | null;
  mounts: Array<{ name: string; state: string }>;
}

const TIMED_OUT = Symbol('timeout');

/** `work` or TIMED_OUT after `ms`, whichever comes first; the timer never holds the process. */
function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const since = (start: number) => Math.round((performance.now() - start) * 10) / 10;

async function probeStore(store: Store, timeoutMs: number): Promise<Probe> {
  const start = performance.now();
  const outcome = await within(store.get(PROBE_KEY).then(() => 'ok' as const, () => 'unavailable' as const), timeoutMs);
  if (outcome === 'ok') return { ok: true, ms: since(start) };
  return { ok: false, ms: since(start), error: outcome === TIMED_OUT ? 'timeout' : outcome };
}

/** The issuer answers when one of its URLs does, or its metadata leads to its key set. */
async function probeIssuer({ urls, discover }: NonNullable<HealthMode['issuer']>, timeoutMs: number): Promise<Probe> {
  const start = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  if (discover) {
    const found = await discover(signal);
    if (typeof found === 'string') return { ok: true, ms: since(start) };
    return { ok: false, ms: since(start), error: signal.aborted ? 'timeout' : found.error ?? 'unavailable' };
  }
  let error = 'unavailable';
  for (const url of urls) {
    try {
      // Not followed, as the key set's own fetch does not follow one (jose): a key set that moved is not there.
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal, redirect: 'manual' });
      void response.body?.cancel().catch(() => undefined);
      if (response.ok) return { ok: true, ms: since(start) };
      error = response.status >= 300 && response.status < 400 ? 'redirect' : `HTTP ${response.status}`;
    } catch {
      error = signal.aborted ? 'timeout' : 'unavailable';
      if (signal.aborted) break;
    }
  }
  return { ok: false, ms: since(start), error };
}

function describeAuth({ auth }: HealthSources, probe: Probe | undefined): Health['auth'] {
  if (!auth) return null;
  const flags = Object.fromEntries(auth.flags.map((flag) => [flag, true]));
  if (auth.issuer && probe) return { mode: auth.mode, issuer: auth.issuer.name, ...probe, ...flags };
  return { mode: auth.mode, ok: true, ...flags };
}

/** Runs the probes; at most one run at a time per instance, shared by every request that arrives during it. */
export function createHealthCheck(sources: HealthSources): () => Promise<Health> {
  let running: Promise<Health> | undefined;
  const run = async (): Promise<Health> => {
    const [store, auth] = await Promise.all([
      probeStore(sources.store, sources.timeoutMs),
      sources.auth?.issuer ? probeIssuer(sources.auth.issuer, sources.timeoutMs) : undefined,
    ]);
    await sources.mounts?.waitForConnections({ timeout: sources.timeoutMs });
    const mounts = (sources.mounts?.status() ?? []).map(({ name, state }) => ({ name, state }));
    const down = !store.ok || (auth !== undefined && !auth.ok);
    return {
      status: down ? 'down' : mounts.some((m) => m.state === 'failed') ? 'degraded' : 'ok',
      name: sources.name,
      version: sources.version,
      store: { kind: sources.store.shared ? 'upstash' : 'memory', ...store },
      auth: describeAuth(sources, auth),
      mounts,
    };
  };
  return () => (running ??= run().finally(() => (running = undefined)));
}

/** The probe as an HTTP reply: JSON, never cached, 503 when down. */
export function createHealthHandler(sources: HealthSources): (request: Request) => Promise<Response> {
  const check = createHealthCheck(sources);
  return async (request) => {
    const health = await check();
    const body = request.method === 'HEAD' ? null : JSON.stringify(health);
    return new Response(body, {
      status: health.status === 'down' ? 503 : 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  };
}
