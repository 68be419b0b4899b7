/**
 * How the usage page names a caller (issue 46): a verified principal by its kind and subject (an API key by its name),
 * a session the server issued or an address by `session:` / `ip:` and 8 hex digits of a MAC under the server's key
 * (lib/server/keyring.ts), so the page shows neither a raw address nor a token, and nobody without MCP_STATE_SECRET can
 * tell which address a label stands for. Each class has its own ranking (record.ts), as each has its own share of the
 * store (lib/store/shares.ts).
 */

import type { Principal } from '../server/context.js';
import type { Keyring } from '../server/keyring.js';
import { CALLER_SETS } from './buckets.js';
import type { CallerLabel } from './record.js';

/** A subject longer than this is cut: enough to tell callers apart on a page, too little to make a field large. */
const MAX_SUBJECT = 128;
const MAC_LABEL = 'usage-caller';

/** The kind a principal named in process (no sign-in mode) is shown as. */
export const IN_PROCESS_KIND = 'principal';

function digest(keyring: Keyring, kind: string, value: string): string {
  return Buffer.from(keyring.macNow(MAC_LABEL, kind, value), 'base64url').toString('hex').slice(0, 8);
}

/** The caller's label; undefined for a caller with no principal, session or address (in process). */
export function callerLabelOf(
  keyring: Keyring, principal: Pick<Principal, 'kind' | 'subject'> | undefined, session: string | undefined, address: string | undefined,
): CallerLabel | undefined {
  if (principal) return { set: CALLER_SETS.principal, label: `${principal.kind ?? IN_PROCESS_KIND}:${principal.subject.slice(0, MAX_SUBJECT)}` };
  if (session !== undefined) return { set: CALLER_SETS.session, label: `session:${digest(keyring, 'session', session)}` };
  if (address !== undefined) return { set: CALLER_SETS.address, label: `ip:${digest(keyring, 'ip', address)}` };
  return undefined;
}
