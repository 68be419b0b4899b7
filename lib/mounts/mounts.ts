/**
 * The mounts of an app: one connection per mount name, started in the background when the mount is added
 * and tracked until it has connected and listed, or failed. As a registry source, a list waits for pending
 * connections up to its bound, so a client is never handed a silently incomplete list after a cold start;
 * a mount still connecting or down is logged to the caller and shown by `status()`, never hidden.
 * A failed mount is retried by a later request; a connection that breaks under a call is reopened.
 */

import type { RequestContext } from '../server/context.js';
import type { Registry, RegistrySource } from '../server/registry.js';
import { buildCatalog } from './catalog.js';
import { callSettingsOf, MOUNT_SEPARATOR, toMountConfig, type MountConfig, type MountInput } from './config.js';
import { createMountOpener, type ClientInfo, type MountSession, type OpenMount } from './connect.js';
import { createConnectionTracker, type WaitOptions } from './connections.js';
import { describeFailure, type MountLink } from './forward.js';

export type MountState = 'connecting' | 'ready' | 'failed';

/** What `mount://status` and `status()` say about one mount; never its URL or headers. */
export interface MountStatus {
  name: string;
  state: MountState;
  /** When the mount entered this state (ISO 8601). */
  since: string;
  tools?: number;
  resources?: number;
  prompts?: number;
  /** Downstream tools left out because their namespaced name is not a valid tool name. */
  skipped?: string[];
  /** Downstream resource URIs and templates left out because the app itself serves them. */
  shadowed?: string[];
  /** Kinds listed partially because the mount passed a listing bound (maxListItems, maxListPages, maxReplyBytes). */
  truncated?: string[];
  /** Why the mount is down. */
  error?: string;
}

export interface Mounts extends RegistrySource {
  /** Adds a mount and starts connecting; a name already mounted with the same URL reuses its connection. */
  add(input: MountInput): MountStatus;
  status(): MountStatus[];
  /** Resolves once the connections pending now are ready or failed, or the timeout passed; never rejects. */
  waitForConnections(options?: WaitOptions): Promise<void>;
  close(): Promise<void>;
  /**
   * The app's own entries: a mount whose prefix holds one of its tool or prompt names is a TypeError naming
   * both (now, or when it is added); a resource a mount publishes under a URI the app serves is left out.
   */
  reserve(registry: Registry): void;
}

export interface MountsOptions {
  mounts?: MountInput[];
  /** How long a request waits for connections still pending (MCP_MOUNTS_WAIT_MS). */
  waitMs: number;
  /** How long a failed mount rests before a request tries it again. */
  retryMs?: number;
  clientInfo?: ClientInfo;
  /** How a connection opens (tests may substitute it). */
  open?: OpenMount;
  /** The deepest a mounted server's reply may nest (MCP_MAX_JSON_DEPTH, the request body's bound; reply-bound.ts). */
  maxJsonDepth?: number;
}

type Connection =
  | { state: 'connecting'; since: number }
  | { state: 'ready'; since: number; session: MountSession; registry: Registry; skipped: string[]; shadowed: string[]; truncated: string[] }
  | { state: 'failed'; since: number; error: string; retryAt: number };

interface Entry {
  config: MountConfig;
  connection: Connection;
  /** Counts attempts, so a late answer to a superseded attempt is ignored. */
  attempt: number;
}

const EMPTY: Registry = { tools: new Map(), resources: new Map(), templates: [], prompts: new Map() };
const LOGGER = 'agent-mcp.mounts';

export function createMounts(options: MountsOptions): Mounts {
  const entries = new Map<string, Entry>();
  const tracker = createConnectionTracker();
  const open = options.open ?? createMountOpener(options.clientInfo ?? { name: 'agent-mcp', version: '0.1.0' }, options.maxJsonDepth);
  const retryMs = options.retryMs ?? 30_000;
  let merged: Registry | undefined;
  let reserved: Registry | undefined;
  let closed = false;

  function connect(entry: Entry): void {
    const attempt = ++entry.attempt;
    entry.connection = { state: 'connecting', since: Date.now() };
    merged = undefined;
    const current = () => !closed && entry.attempt === attempt;
    // The first break of a ready connection drops it (one log line), and the next request reconnects; a break
    // while connecting fails the attempt itself.
    const broken = (error: string) => current() && entry.connection.state === 'ready' && fail(entry, error, 0);
    tracker.track(entry.config.name, open(entry.config, { broken }).then(
      (session) => {
        if (!current()) return void session.close().catch(() => undefined);
        const link: MountLink = {
          name: entry.config.name,
          session,
          ...callSettingsOf(entry.config),
          // A connection that broke under a request is reopened by the next request, without a rest.
          broken,
        };
        const { registry, skipped, shadowed } = buildCatalog(link, session.listings, reserved);
        if (skipped.length) console.warn(`[agent-mcp] mount ${entry.config.name}: left out tools with names invalid under SEP-986: ${skipped.join(', ')}`);
        if (shadowed.length) console.warn(`[agent-mcp] mount ${entry.config.name}: left out resources the app itself serves: ${shadowed.join(', ')}`);
        const truncated = session.listings.truncated ?? [];
        if (truncated.length) console.warn(`[agent-mcp] mount ${entry.config.name} is listed partially: ${truncated.join('; ')}`);
        entry.connection = { state: 'ready', since: Date.now(), session, registry, skipped, shadowed, truncated };
        merged = undefined;
      },
      (error: unknown) => current() && fail(entry, describeFailure(error), retryMs),
    ));
  }

  function fail(entry: Entry, error: string, restMs: number): void {
    const previous = entry.connection;
    if (previous.state === 'ready') void previous.session.close().catch(() => undefined);
    const since = Date.now();
    entry.connection = { state: 'failed', since, error, retryAt: since + restMs };
    merged = undefined;
    console.warn(`[agent-mcp] mount ${entry.config.name} is down: ${error}`);
  }

  function retryFailed(): void {
    const now = Date.now();
    for (const entry of entries.values()) {
      if (entry.connection.state === 'failed' && now >= entry.connection.retryAt) connect(entry);
    }
  }

  /**
   * The bound runs from when each attempt started, not from each request: once an attempt has had its
   * `waitMs`, later requests answer at once instead of each waiting again for a server that hangs.
   */
  function remainingWait(): number {
    let latest = -Infinity;
    for (const { connection } of entries.values()) if (connection.state === 'connecting') latest = Math.max(latest, connection.since);
    return latest + options.waitMs - Date.now();
  }

  function mergeReady(): Registry {
    const ready = [...entries.values()].flatMap((e) => (e.connection.state === 'ready' ? [e.connection.registry] : []));
    if (ready.length === 0) return EMPTY;
    if (ready.length === 1) return ready[0]!;
    // Mount prefixes keep tool and prompt names apart; a resource URI two mounts share goes to the first.
    const pick = <T>(of: (r: Registry) => Map<string, T>) => {
      const map = new Map<string, T>();
      for (const registry of ready) for (const [key, value] of of(registry)) if (!map.has(key)) map.set(key, value);
      return map;
    };
    return { tools: pick((r) => r.tools), resources: pick((r) => r.resources), templates: ready.flatMap((r) => r.templates), prompts: pick((r) => r.prompts) };
  }

  /** Logs each mount that is not ready to the caller; true when every mount is ready. */
  function report(ctx: RequestContext): boolean {
    let complete = true;
    for (const { config: { name }, connection } of entries.values()) {
      if (connection.state === 'ready') continue;
      const what = connection.state === 'failed' ? `is down (${connection.error})` : 'is still connecting';
      const message = `Mount ${name} ${what}; its tools, resources and prompts are missing from this answer.`;
      const error = connection.state === 'failed' ? { error: connection.error } : {};
      ctx.log('warning', { mount: name, state: connection.state, ...error, message }, LOGGER);
      complete = false;
    }
    return complete;
  }

  const mounts: Mounts = {
    add(input) {
      const config = toMountConfig(input);
      const existing = entries.get(config.name);
      if (existing) {
        if (existing.config.url !== config.url) throw new TypeError(`Mount "${config.name}" is already mounted from another URL.`);
        return describe(existing);
      }
      if (closed) throw new TypeError('These mounts are closed.');
      if (reserved) refuseClash(config.name, reserved);
      const entry: Entry = { config, connection: { state: 'connecting', since: Date.now() }, attempt: 0 };
      entries.set(config.name, entry);
      connect(entry);
      return describe(entry);
    },
    status: () => [...entries.values()].map(describe),
    reserve(registry) {
      for (const name of entries.keys()) refuseClash(name, registry);
      reserved = registry;
    },
    waitForConnections: (wait) => tracker.waitForConnections(wait),
    async read(ctx) {
      retryFailed();
      await tracker.waitForConnections({ timeout: remainingWait(), signal: ctx.signal });
      const complete = report(ctx);
      merged ??= mergeReady();
      return complete ? merged : { ...merged, incomplete: true };
    },
    async close() {
      closed = true;
      const sessions = [...entries.values()].flatMap((e) => (e.connection.state === 'ready' ? [e.connection.session] : []));
      entries.clear();
      merged = EMPTY;
      await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
    },
  };
  for (const input of options.mounts ?? []) mounts.add(input);
  return mounts;
}

/** A TypeError when the app names a tool or prompt under the mount's prefix. */
function refuseClash(mount: string, registry: Registry): void {
  const prefix = `${mount}${MOUNT_SEPARATOR}`;
  for (const [kind, names] of [['Tool', registry.tools.keys()], ['Prompt', registry.prompts.keys()]] as const) {
    for (const name of names) {
      if (name.startsWith(prefix)) {
        throw new TypeError(`${kind} "${name}" collides with mount "${mount}": names starting "${prefix}" belong to that mount; rename one of them.`);
      }
    }
  }
}

function describe({ config, connection }: Entry): MountStatus {
  const base = { name: config.name, state: connection.state, since: new Date(connection.since).toISOString() };
  if (connection.state === 'failed') return { ...base, error: connection.error };
  if (connection.state === 'connecting') return base;
  const { registry, skipped, shadowed, truncated } = connection;
  return {
    ...base,
    tools: registry.tools.size,
    resources: registry.resources.size + registry.templates.length,
    prompts: registry.prompts.size,
    ...(skipped.length ? { skipped } : {}),
    ...(shadowed.length ? { shadowed } : {}),
    ...(truncated.length ? { truncated } : {}),
  };
}
