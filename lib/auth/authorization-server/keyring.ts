/**
 * The built-in server's MAC keys, derived from its signing keys (AUTH_SERVER_KEY), so every instance of a deployment,
 * and every deployment sharing that key, recognises what another issued: client ids of registered clients, sealed
 * pending authorizations, relayed provider callbacks. Each kind under its own label (lib/server/keyring.ts).
 * During a rotation (docs/oauth.md "Rotating the signing key") a value is sealed under the signing key's MAC key and
 * opens under any accepted key's, so what was sealed before the rotation, or by an instance still on the old
 * settings, still opens while its key is listed.
 */

import { createKeyring, type Keyring } from '../../server/keyring.js';
import type { SigningKey } from '../signing-key.js';

export interface ServerKeyring extends Keyring {
  /** A keyring per accepted key, the signing key's first: a value sealed under any of them opens (seal.ts). */
  readonly accepted: readonly Keyring[];
}

const macKeyringOf = (key: SigningKey): Keyring => createKeyring(process.getBuiltinModule('node:crypto').createHash('sha256')
  .update('agent-mcp authorization server MAC key\0').update(key.privateJwk.d).digest('base64url'));

/** `keys`: the signing key first, then the others accepted (signing-key.ts SigningKeys.accepted). */
export function createServerKeyring(keys: readonly SigningKey[]): ServerKeyring {
  const accepted = keys.map(macKeyringOf);
  const signing = accepted[0]!;
  return {
    accepted,
    mac: signing.mac,
    macNow: signing.macNow,
    issue: signing.issue,
    async check(label, token, ...binding) {
      for (const keyring of accepted) if (await keyring.check(label, token, ...binding)) return true;
      return false;
    },
  };
}
