/**
 * Who is calling, in terms an attacker cannot forge, and every store key of per-caller state, built here and
 * nowhere else (docs/architecture.md rule 7).
 *
 * - The owner of a conversation is the verified principal (anonymous: nobody in particular; the conversation id,
 *   a server-issued capability bound to that owner, is then what keeps it private).
 * - The caller of cross-request powers (cancelling a call, answering its server-to-client requests, resuming its
 *   stream, joining its retry) is the principal together with the session the server issued to that client, or
 *   either alone. A caller with neither has no such powers: nobody can act on its calls by a later request.
 * Client-chosen strings (JSON-RPC ids, message text) only ever appear behind one of these.
 */

import { sha256HexSync } from '../digest.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type { StoreBudget } from '../store/types.js';
import { principalKey, type PrincipalKind } from './principal-key.js';

/** The part of a verified principal that identifies it (server/context.ts Principal), keyed by principalKey. */
type Subject = { kind?: PrincipalKind; subject: string };

/** Whom a new task counts against (lib/tasks/quota.ts). */
export interface TaskQuota {
  /** The owner held to TASK_MAX_PER_CALLER: the principal (whatever session it uses), else an issued session. */
  caller?: string;
  /** True for a caller without a principal: it also counts against the anonymous pool (TASK_MAX_ANONYMOUS). */
  anonymous: boolean;
}

/**
 * One request's caller, built once by its transport (lib/http/serve.ts, lib/server/in-process.ts) from what it
 * verified, and on the call's context as `ctx.caller`: every feature reads its keys here, none derives its own.
 * Parts an attacker cannot forge only: the verified principal, the session id the server issued (its MAC checked)
 * or an in-process connection's own id, and the address the request came from (the socket's, or the one Vercel's
 * edge sets; lib/limits/check.ts clientIp). A call that did not come over HTTP has no address.
 */
export class Caller {
  /** Made when first read (null until then): the transport reads them on every request, some features again. */
  #key: string | undefined | null = null;
  #concurrencyKey: string | undefined | null = null;

  constructor(
    readonly principal?: Subject,
    readonly session?: string,
    readonly address?: string,
  ) {}

  /** The identity of cross-request state (cancelling, answering, resuming, retrying its calls); undefined with neither. */
  get key(): string | undefined {
    if (this.#key === null) {
      const { principal, session } = this;
      this.#key = principal === undefined && session === undefined
        ? undefined
        : JSON.stringify([principal ? principalKey(principal) : null, session ?? null]);
    }
    return this.#key;
  }

  /**
   * The owner of a deployment's own per-caller state (lib/define: `ctx.stateKey`): the verified principal, so it
   * outlives a session; else the session the server issued (2025 wire); else nobody, and there is no such state.
   */
  get stateOwner(): string | undefined {
    return this.principal === undefined ? this.key : JSON.stringify([principalKey(this.principal)]);
  }

  /** The owner of long-lived state (conversations): the principal's key, '' when anonymous. */
  get conversationOwner(): string {
    return this.principal ? principalKey(this.principal) : '';
  }

  /**
   * The owner of a task: the caller (principal and/or issued session), '' for a caller with neither. Such an
   * anonymous task is reachable by whoever holds its id, a 128-bit server-issued capability, as SEP-2663 allows for
   * servers that cannot bind tasks to an authorization context; it is never listed.
   */
  get taskOwner(): string {
    return this.key ?? '';
  }

  /**
   * A principal's tasks count against its own bound, whatever session it calls from; a caller without one counts
   * against the anonymous pool on both wires, since a session costs nothing to open, and a session the server issued
   * it is held to its own bound within that pool. Who may read a task is its owner (taskOwner), unchanged.
   */
  get taskQuota(): TaskQuota {
    return { caller: this.stateOwner, anonymous: this.principal === undefined };
  }

  /**
   * Whose share of concurrent calls a call takes (lib/limits/concurrency.ts): the verified principal's, else the
   * address the request came from. Not the session: an `Mcp-Session-Id` costs one unauthenticated POST to mint, so
   * a share per session would cap nothing; callers behind one address without a token share theirs. Undefined for
   * a call that did not come over HTTP.
   */
  get concurrencyKey(): string | undefined {
    if (this.#concurrencyKey === null) {
      this.#concurrencyKey = this.address === undefined ? undefined : JSON.stringify(this.#counted());
    }
    return this.#concurrencyKey;
  }

  /**
   * Whose budget of a per-tool rate limit (RATE_LIMIT_TOOLS) a call spends: the verified principal's, else the
   * address's, as the endpoint's own limits count callers (a session costs nothing to mint, so it is not one); one
   * budget per limit pattern. Long parts are keyed by their digest (keyOf), so a subject never makes a key large.
   */
  toolLimitKey(pattern: string): string {
    return keyOf('tool', pattern, ...this.#counted());
  }

  /**
   * Whose token budget a chat call spends (lib/limits/tokens.ts): the verified principal's, else the address's, as the
   * rate limits count callers; with `agentId`, that caller's budget with one agent.
   */
  tokenBudgetKey(agentId?: string): string {
    return agentId === undefined ? keyOf('tokens', ...this.#counted()) : keyOf('tokens', 'agent', agentId, ...this.#counted());
  }

  /**
   * Whose share of runs that outlived their call (AGENT_MAX_BACKGROUND_RUNS, lib/tasks/on-behalf.ts) a run takes: the
   * share of concurrent calls its call took (concurrencyKey), since such a run is that call going on; a call that did
   * not come over HTTP (in process) has none, and counts against its state's owner.
   */
  get backgroundKey(): string {
    return this.concurrencyKey ?? JSON.stringify(['owner', this.stateOwner ?? null]);
  }

  /**
   * Whose share of the store a request's writes are charged to (docs/architecture.md rule 12): the owner of its
   * per-caller state (stateOwner: the principal, which a caller cannot shed by opening sessions; else the session the
   * server issued), else the address it calls from (its share of concurrent calls, concurrencyKey), each in its class
   * of callers; with none of these, the caller without an identity. Every write of the request counts there, whatever
   * key it names: a conversation an anonymous session continues is that session's to keep.
   */
  get storeBudget(): StoreBudget {
    if (this.principal !== undefined) return { owner: this.stateOwner!, class: 'principal' };
    if (this.key !== undefined) return { owner: this.key, class: 'session' };
    const address = this.concurrencyKey;
    return address === undefined ? 'anonymous' : { owner: address, class: 'anonymous' };
  }

  /** Who a rate counts: the principal, else the address ('unknown' without one, as clientIp says of a missing socket address). */
  #counted(): [string, string] {
    return this.principal === undefined ? ['ip', this.address ?? 'unknown'] : ['principal', principalKey(this.principal)];
  }
}

/**
 * The longest part a key holds as it is (docs/architecture.md rule 8: ids that reach store keys). A longer part (a client's
 * 3 MB JSON-RPC id, a long subject, a deployment's stateKey part) is keyed by its SHA-256, so no client string makes
 * a key, or the watcher's batched read of every waiting key (store/watch.ts), large.
 */
export const MAX_KEY_PART_CHARS = 256;

/**
 * A store key from parts that may hold any character: JSON-encoded, so it never throws (a lone surrogate is
 * escaped, not a URIError) and no two part lists give the same key. A part over MAX_KEY_PART_CHARS becomes
 * `{"sha256": …}`, an object where every other part is a string, so a digest never equals a part kept as it is.
 */
export function keyOf(prefix: string, ...parts: string[]): string {
  // What JSON.stringify of the bounded parts gives, written out: a key is made for every store operation.
  let key = `${prefix}:[`;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    key += `${i ? ',' : ''}${JSON.stringify(part.length > MAX_KEY_PART_CHARS ? { sha256: sha256HexSync(part) } : part)}`;
  }
  return `${key}]`;
}

const idText = (id: RequestId) => JSON.stringify(id);

export const storeKeys = {
  /** A legacy `notifications/cancelled` for the caller's request `id`. */
  cancel: (caller: string, id: RequestId) => keyOf('cancel', caller, idText(id)),
  /** The client's answer to our server-to-client request `id` (an id we minted for this caller). */
  clientAnswer: (caller: string, id: string) => keyOf('reply', caller, id),
  /** Room a call holds for its closing writes until it leaves (store/types.ts Reservation): its own, by a fresh id. */
  room: (id: string) => keyOf('room', id),
  /** A call's retry coordination: the same caller sending the same request again. */
  retry: (caller: string, id: RequestId, requestDigest: string) => keyOf('chat', caller, idText(id), requestDigest),
  /** A conversation's history and its turn queue. */
  conversation: (owner: string, agentId: string, conversationId: string) => keyOf('conv', owner, agentId, conversationId),
  turns: (owner: string, agentId: string, conversationId: string) => keyOf('session', owner, agentId, conversationId),
  /** The run of a conversation that outlived its call (lib/agent/reply-deadline.ts): where a collecting call finds it. */
  pendingReply: (owner: string, agentId: string, conversationId: string) => keyOf('pending', owner, agentId, conversationId),
  /** What an upstream that keeps the conversation gave us to continue it (a Responses id, an A2A context and task). */
  upstreamState: (owner: string, agentId: string, conversationId: string) => keyOf('upstream-conv', owner, agentId, conversationId),
  /** A task's working state, its terminal outcome (claimed once), an answer to one of its input requests, a resumption. */
  task: (owner: string, taskId: string) => keyOf('task', owner, taskId),
  taskEnd: (owner: string, taskId: string) => keyOf('task-end', owner, taskId),
  taskInput: (owner: string, taskId: string, key: string) => keyOf('task-input', owner, taskId, key),
  taskRound: (owner: string, taskId: string, round: number) => keyOf('task-round', owner, taskId, String(round)),
  /** A multi-round requestState that was used, by its digest: each is used once (server/dispatch.ts). */
  usedRequestState: (caller: string, digest: string) => keyOf('mrtr-used', caller, digest),
  /** The ids of the tasks a caller made in one window of TASK_TTL_MS, for the legacy tasks/list (lib/tasks/quota.ts). */
  taskIndex: (owner: string, window: number) => keyOf('tasks', owner, String(window)),
  /** How many tasks a quota owner (Caller taskQuota; '' for the anonymous pool) asked for in one window, and how many were refused. */
  taskCount: (owner: string, window: number) => keyOf('task-count', owner, String(window)),
  taskRefused: (owner: string, window: number) => keyOf('task-refused', owner, String(window)),
};

/**
 * The built-in authorization server's records (lib/auth/authorization-server), apart from storeKeys so the MCP function's bundle
 * leaves them out. Written through the 'security' budget: an authorization code (by its SHA-256: the store never
 * holds a code), its single use, a refresh-token family (its current token's SHA-256 and the last ones'), the
 * family's revocation, a refresh token's single use, a person's remembered consents and their revocations. Not per caller: each is named by an unguessable digest or id.
 */
export const authorizationKeys = {
  authorizationCode: (digest: string) => keyOf('oauth-code', digest),
  authorizationCodeUsed: (digest: string) => keyOf('oauth-code-used', digest),
  refreshFamily: (family: string) => keyOf('oauth-family', family),
  refreshFamilyRevoked: (family: string) => keyOf('oauth-family-revoked', family),
  refreshTokenUsed: (digest: string) => keyOf('oauth-refresh-used', digest),
  /** The single use of an enterprise ID-JAG, by the digest of its issuer and `jti`. */
  assertionUsed: (digest: string) => keyOf('oauth-assertion-used', digest),
  /** The GitHub id an AUTH_SERVER_ALLOW name (`github` or `github-org`, lowercased) was bound to when it first admitted someone. */
  githubName: (kind: string, name: string) => keyOf('oauth-github-name', kind, name),
  /** The consents a person gave on the consent page, remembered (remembered-consent.ts), by the person's digest. */
  consents: (person: string) => keyOf('oauth-consents', person),
  /** When a person's consent to a client (by its digest) was last revoked: no consent given before counts. */
  consentRevoked: (person: string, client: string) => keyOf('oauth-consent-revoked', person, client),
  /** A Client ID Metadata Document's parsed content, cached in the anonymous pool (anyone can name a URL). */
  clientDocument: (clientId: string) => keyOf('oauth-client-doc', clientId),
};

/** A key of a deployment's own per-caller state (Caller stateOwner): apart from every key agent-mcp itself keeps. */
export const ownStateKey = (owner: string, parts: string[]) => keyOf('own', owner, ...parts);
