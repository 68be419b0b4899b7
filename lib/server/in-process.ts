/**
 * An in-process client transport: the official SDK client (or any code speaking JSON-RPC) talks to the
 * dispatcher with no network hop. It has the shape of the SDK's `Transport` without depending on the SDK.
 * `principal` plays the part of a verified bearer token; the era is classified by the same function the
 * HTTP endpoint uses, with headers that mirror the body as a conforming HTTP client would send them.
 */

import { askableCapabilities } from '../protocol/client-capabilities.js';
import { classifyBody, type HeaderSource } from '../protocol/classify.js';
import { H_METHOD, H_NAME, H_PROTOCOL_VERSION, NAME_FIELD_BY_METHOD } from '../protocol/headers.js';
import { errorMessage, isObject, ownValue, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { META_PROTOCOL_VERSION } from '../protocol/meta.js';
import { ASSUMED_LEGACY_VERSION } from '../protocol/revisions.js';
import type { Store } from '../store/types.js';
import { Caller } from './caller.js';
import type { CallContext, LimitTool, Principal } from './context.js';
import type { Dispatch } from './dispatch.js';

export interface InProcessOptions {
  dispatch: Dispatch;
  store: Store;
  /** Treated exactly like the principal of a verified token. */
  principal?: Principal;
  /** The per-tool limits of the HTTP caller this connection acts for (an agent's tools); none for the deployment's own code. */
  limitTool?: LimitTool;
}

/** Headers a conforming client would send with this body. */
function mirroredHeaders(body: Record<string, unknown>, legacyVersion: string): HeaderSource {
  const params = isObject(body.params) ? body.params : {};
  const claim = isObject(params._meta) ? params._meta[META_PROTOCOL_VERSION] : undefined;
  const nameField = typeof body.method === 'string' ? ownValue(NAME_FIELD_BY_METHOD, body.method) : undefined;
  const values: Record<string, unknown> = {
    [H_PROTOCOL_VERSION]: claim ?? legacyVersion,
    [H_METHOD]: body.method,
    [H_NAME]: nameField ? params[nameField] : undefined,
  };
  return { get: (name) => (typeof values[name] === 'string' ? (values[name] as string) : null) };
}

/** What an in-process connection carries of the HTTP caller it acts for. */
export type InProcessLimits = Pick<InProcessOptions, 'limitTool'>;

export class InProcessTransport {
  /**
   * Receives `JsonRpcMessage`s. The parameter is typed as wide as `object` so that the SDK's `Transport`, whose
   * handler is generic over its own JSON-RPC message type (not ours: its error responses may omit `id`),
   * accepts this transport.
   */
  onmessage?: (message: JsonRpcMessage | object) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  #version = ASSUMED_LEGACY_VERSION;
  /** Legacy: what this client declared at initialize (HTTP keeps it in the session id). */
  #legacyCapabilities: Record<string, unknown> = {};
  #closed = new AbortController();
  readonly #options: InProcessOptions;
  /** This connection is one client: its identity for cross-request state, as a session id would be over HTTP. */
  readonly #caller: Caller;
  /** The store, with this connection's writes charged to its share (lib/server/caller.ts Caller.storeBudget). */
  readonly #store: Store;

  constructor(options: InProcessOptions) {
    this.#options = options;
    this.#caller = new Caller(options.principal, crypto.randomUUID());
    this.#store = options.store.withBudget(this.#caller.storeBudget);
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.#version = version;
  }

  /**
   * Takes any value, as the HTTP endpoint takes any body: classification validates it. (Typed `unknown` so the
   * SDK's `Transport.send(JSONRPCMessage)` accepts this transport; its message type is not ours.)
   */
  async send(message: unknown): Promise<void> {
    if (this.#closed.signal.aborted) throw new Error('The in-process transport is closed.');
    const classified = classifyBody(message, mirroredHeaders(isObject(message) ? message : {}, this.#version));
    if (classified.kind === 'reject') return this.#deliver(errorMessage(classified.id, classified.error));
    if (classified.kind === 'legacy' && isObject(message) && message.method === 'initialize' && isObject(message.params)) {
      this.#legacyCapabilities = askableCapabilities(message.params.capabilities);
    }
    const call: CallContext = {
      era: classified.kind,
      protocolVersion: classified.kind === 'modern' ? classified.meta.protocolVersion : classified.version,
      principal: this.#options.principal,
      caller: this.#caller,
      clientCapabilities: classified.kind === 'modern' ? classified.meta.clientCapabilities : this.#legacyCapabilities,
      logLevel: classified.kind === 'modern' ? classified.meta.logLevel : undefined,
      signal: this.#closed.signal,
      store: this.#store,
      cancelByNotification: true,
      outbound: { write: (m) => this.#deliver(m) },
      limitTool: this.#options.limitTool,
    };
    const messages = classified.kind === 'modern' ? [classified.message] : classified.messages;
    for (const m of messages) {
      void this.#options.dispatch(m, call).then(
        (reply) => reply && this.#deliver(reply),
        (error: Error) => this.onerror?.(error),
      );
    }
  }

  async close(): Promise<void> {
    if (this.#closed.signal.aborted) return;
    this.#closed.abort();
    this.onclose?.();
  }

  #deliver(message: JsonRpcMessage): void {
    if (this.#closed.signal.aborted) return;
    queueMicrotask(() => this.onmessage?.(message));
  }
}
