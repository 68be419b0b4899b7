/**
 * Who may use an entry (docs/security.md "What scopes gate"): one rule for tools, resources, resource templates,
 * prompts and skills, whether the entry is listed, called, read, got or completed. The caller's principal must
 * hold every scope the entry names, or the server's default (AUTH_SCOPES) when it names none. A caller without a
 * principal (auth off, an in-process client given none) is not checked.
 *
 * Everything forwarded with a mount's or an agent's credentials passes here first (docs/architecture.md):
 * a list leaves out what the caller may not use (2026-07-28 server/tools: lists MAY vary by authorization), and a
 * use of it is 403 insufficient_scope, which the HTTP layer answers with the step-up challenge (MCP authorization
 * §Scope Challenge Handling).
 */

import { INSUFFICIENT_SCOPE, McpError } from '../protocol/errors.js';
import type { Principal } from './context.js';

/** Any entry the server serves: absent `scopes` means the server's default. */
export interface Scoped {
  scopes?: readonly string[];
}

/** What the rule needs to know of the server and of the request. */
export interface AccessPolicy {
  defaultScopes: readonly string[];
}
type Asker = { principal?: Principal };

/** The scopes `entry` needs. */
export function requiredScopes(policy: AccessPolicy, entry: Scoped): readonly string[] {
  return entry.scopes ?? policy.defaultScopes;
}

function missingScopes(policy: AccessPolicy, entry: Scoped, { principal }: Asker): string[] {
  if (!principal) return [];
  return requiredScopes(policy, entry).filter((scope) => !principal.scopes.includes(scope));
}

/** True when the caller may list and use `entry`. */
export function mayUse(policy: AccessPolicy, entry: Scoped, asker: Asker): boolean {
  return missingScopes(policy, entry, asker).length === 0;
}

/**
 * Refuses a use of `entry`, named `label` in the message (a tool's or prompt's name, a resource's URI), when the
 * caller lacks a scope it needs: an INSUFFICIENT_SCOPE error naming the needed and the granted scopes.
 */
export function requireAccess(policy: AccessPolicy, entry: Scoped, label: string, asker: Asker): void {
  const missing = missingScopes(policy, entry, asker);
  if (missing.length === 0) return;
  throw new McpError(INSUFFICIENT_SCOPE, `Insufficient scope: ${label} needs ${missing.join(' ')}.`, {
    requiredScopes: requiredScopes(policy, entry),
    grantedScopes: asker.principal!.scopes,
  });
}
