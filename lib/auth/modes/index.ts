/**
 * The sign-in modes, one row each (mode.ts says what a row holds). A new mode is a row file and one line here; the
 * verifier (lib/auth/verifier.ts), the challenge, the start-up lines, the health probe and the discovery documents
 * read this table and nothing else about modes. The order is the order they are described in: the first mode on is
 * what mcp.json and the health probe name, the ones after it are flags beside it (`apiKeys: true`).
 */

import { apiKeyMode } from './api-keys.js';
import { authorizationServerMode } from './authorization-server.js';
import { enterpriseMode } from './enterprise.js';
import { issuerMode } from './issuer.js';
import { AUTH_TYPE, type ActiveMode, type Env, type SignInMode } from './mode.js';

export type { ActiveMode, SignInMode } from './mode.js';

export const SIGN_IN_MODES: readonly SignInMode[] = [
  issuerMode,
  authorizationServerMode,
  enterpriseMode,
  apiKeyMode,
];

/** The modes `env` turns on, in table order; none when auth is off. A misused variable throws a TypeError naming it. */
export function readSignIn(env: Env, table: readonly SignInMode[] = SIGN_IN_MODES): ActiveMode[] {
  return table.flatMap((mode) => mode.read(env) ?? []);
}

/** The flags of the modes after the first: `{ apiKeys: true }` beside an issuer. */
const flagsBeside = (modes: readonly ActiveMode[]) => Object.fromEntries(modes.slice(1).flatMap((m) => (m.besides ? [[m.besides, true]] : [])));

/** mcp.json's `auth`: the first mode's, with the others as flags; `public` with none. */
export const discoveryOf = (modes: readonly ActiveMode[], origin: string): Record<string, unknown> =>
  modes.length ? { ...modes[0]!.discovery(origin), ...flagsBeside(modes) } : { type: AUTH_TYPE.public };

/** What the health probe says of sign-in: the first mode, and the others as flags; absent with none. */
export const healthOf = (modes: readonly ActiveMode[]) => (modes.length ? { ...modes[0]!.health, flags: Object.keys(flagsBeside(modes)) } : undefined);

/** The OAuth settings of the mode a client signs in with at an authorization server, if one is on. */
export const oauthOf = (modes: readonly ActiveMode[]) => modes.find((m) => m.oauth)?.oauth;
