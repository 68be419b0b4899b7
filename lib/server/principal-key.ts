/**
 * The one string a principal's per-caller state is keyed by (lib/server/caller.ts, the rate limits, the sessions
 * and payments bound to it): its subject, behind its kind's prefix where the kind has one. Before the principal
 * carried its kind, an API key's subject was `key:<name>` and every other subject was bare; those strings are
 * reproduced here byte for byte, so state stored by an earlier release stays its owner's.
 */

/** How a principal signed in: a sign-in mode's kind (lib/auth/modes), or absent for one the deployment's code names in process. */
export type PrincipalKind = 'api-key' | 'issuer' | 'authorization-server' | (string & {});

/**
 * The kinds whose subjects keyed state bare, and the one that had a prefix. A kind not listed (a mode added later)
 * gets `<kind>:`, so its subjects can never key another mode's state; a bare mode refuses subjects in any other
 * mode's namespace (lib/auth/verifier.ts).
 */
const KNOWN_PREFIXES: Readonly<Record<string, string>> = { issuer: '', 'authorization-server': '', 'api-key': 'key:' };

/** The prefix a kind's subjects key state under; '' for a principal named in process. */
export const keyPrefixOf = (kind: PrincipalKind | undefined): string =>
  kind === undefined ? '' : Object.hasOwn(KNOWN_PREFIXES, kind) ? KNOWN_PREFIXES[kind]! : `${kind}:`;

/** What a principal's state is keyed by: `key:ci` for the API key named ci, the bare `sub` of a token. */
export const principalKey = (principal: { kind?: PrincipalKind; subject: string }): string =>
  `${keyPrefixOf(principal.kind)}${principal.subject}`;
