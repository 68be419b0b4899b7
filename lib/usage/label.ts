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
/**
 * Labels of sessions and of addresses kept, each: a caller calls again and again, and its label's MAC was a tenth of a
 * warm call's CPU (docs/performance.md "Issue 48: the warm call"). Past the bound the oldest goes first; a label
 * made again is the same label, so a flood of new addresses costs the others a MAC each, never a wrong count.
 */
export const MAX_KEPT_LABELS = 512;

/** The kind a principal named in process (no sign-in mode) is shown as. */
export const IN_PROCESS_KIND = 'principal';

type Labelled = 'session' | 'ip';

/** A caller's label; undefined for a caller with no principal, session or address (in process). */
export type CallerLabels = (
  principal: Pick<Principal, 'kind' | 'subject'> | undefined, session: string | undefined, address: string | undefined,
) => CallerLabel | undefined;

/** Labels callers under `keyring`'s key, each session's and address's MAC made once while it is kept. */
export function createCallerLabels(keyring: Keyring): CallerLabels {
  const kept: Record<Labelled, Map<string, CallerLabel>> = { session: new Map(), ip: new Map() };
  const labelOf = (kind: Labelled, set: CallerLabel['set'], value: string): CallerLabel => {
    const labels = kept[kind];
    let label = labels.get(value);
    if (label) return label;
    const mac = Buffer.from(keyring.macNow(MAC_LABEL, kind, value), 'base64url').toString('hex').slice(0, 8);
    label = Object.freeze({ set, label: `${kind}:${mac}` });
    if (labels.size >= MAX_KEPT_LABELS) labels.delete(labels.keys().next().value!);
    labels.set(value, label);
    return label;
  };
  return (principal, session, address) => {
    if (principal) return { set: CALLER_SETS.principal, label: `${principal.kind ?? IN_PROCESS_KIND}:${principal.subject.slice(0, MAX_SUBJECT)}` };
    if (session !== undefined) return labelOf('session', CALLER_SETS.session, session);
    if (address !== undefined) return labelOf('ip', CALLER_SETS.address, address);
    return undefined;
  };
}
