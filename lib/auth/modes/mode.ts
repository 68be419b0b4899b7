/**
 * What a sign-in mode is (one row of lib/auth/modes/index.ts): how it reads its settings, recognises a credential it
 * owns, verifies it to a principal of its kind, and describes itself to the start-up lines, the health probe and the
 * discovery documents. The code around sign-in reads these rows and nothing else about modes.
 */

import type { Rate } from '../../limits/rate.js';
import type { PrincipalKind } from '../../server/principal-key.js';
import type { AuthConfig } from '../config.js';
import type { IssuerMisconfigured, KeysUnavailable } from '../keys.js';
import type { Verification } from '../verify.js';

export type Env = Record<string, string | undefined>;

/** mcp.json's `auth.type`: how a client authenticates (read back by `npm run smoke`). */
export const AUTH_TYPE = { oauth: 'oauth-protected-resource', apiKey: 'api-key', public: 'public' } as const;

/** A bearer token as the verifier holds it: its text, and its JWT claims read unverified, once, when a mode asks. */
export interface PresentedToken {
  readonly text: string;
  /** The payload of a JWT, not verified: only to tell whose token it is. Undefined when it is not a JWT. */
  claims(): Readonly<Record<string, unknown>> | undefined;
}

/** What a token is checked against: the request's MCP URLs (its audience) and its public origin. */
export interface TokenContext {
  audiences: string[];
  origin: string;
}

/** How a mode shows in the health probe: its name there, and the issuer to probe when it has one. */
export interface HealthMode {
  mode: string;
  issuer?: { name: string; urls: string[]; discover?: (signal: AbortSignal) => Promise<string | KeysUnavailable | IssuerMisconfigured> };
}

/** A row of the table: always there, on or off. */
export interface SignInMode {
  kind: PrincipalKind;
  /** What its callers send, in "This server accepts only …". */
  credentials: string;
  /** Whose principal a subject in this kind's namespace is, in "The token's sub claim names …". */
  principalName: string;
  /**
   * A token that is this mode's by its shape alone (an API key's prefix), so that while the mode is off the caller is
   * told `off` rather than have another mode take it.
   */
  owns?(token: PresentedToken): boolean;
  off?: string;
  /** The mode, on, from its variables; undefined when they are unset. A misused variable throws a TypeError naming it. */
  read(env: Env): ActiveMode | undefined;
}

/** A mode a deployment turned on, its settings read. */
export interface ActiveMode {
  kind: PrincipalKind;
  credentials: string;
  /** Whether `token` is this mode's to verify: its shape, or a JWT's unverified `iss`. */
  recognises(token: PresentedToken, origin: string): boolean;
  /** Takes the tokens no mode recognises, and refuses them in its own words (a JWT from an issuer nobody named). */
  fallback?: boolean;
  /** The principal of `token`, of this mode's kind, or why not. Never throws. */
  verify(token: string, context: TokenContext): Promise<Verification>;
  /**
   * The OAuth settings of a mode whose tokens an authorization server issues after a sign-in: the 401 challenge and
   * the protected-resource metadata name it (issuerFor). Absent for a credential a caller is given (API keys).
   */
  oauth?: AuthConfig;
  /** The start-up line's words for it (lib/auth describeAuth). */
  startup: string;
  health: HealthMode;
  /** mcp.json's `auth` when it is the deployment's first mode. */
  discovery(origin: string): Record<string, unknown>;
  /** The flag that says it is accepted too, in mcp.json's `auth` and the health probe's, beside the first mode. */
  besides?: string;
  /** Its principals' own rate limits, by principalKey (lib/limits: instead of RATE_LIMIT_PRINCIPAL). */
  rates?: ReadonlyMap<string, Rate>;
  /** A check that needs to know how the server is served (the token audience's source); throws a TypeError. */
  checkServed?(served: { local: boolean }, env: Env): void;
  /** `npm start`'s check before it listens: `misconfigured` stops it, `unavailable` is said and start-up goes on. */
  checkBeforeListening?(signal: AbortSignal): Promise<{ misconfigured: string } | { unavailable: string } | undefined>;
}
