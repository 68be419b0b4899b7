/**
 * The built-in server's MAC key, derived from its signing key (AUTH_SERVER_KEY), so every instance of a deployment,
 * and every deployment sharing that key, recognises what another issued: client ids of registered clients, sealed
 * pending authorizations, relayed provider callbacks. Each kind under its own label (lib/server/keyring.ts).
 */

import { createKeyring, type Keyring } from '../../server/keyring.js';
import type { SigningKey } from '../signing-key.js';

export function createServerKeyring(key: SigningKey): Keyring {
  const secret = process.getBuiltinModule('node:crypto').createHash('sha256')
    .update('agent-mcp authorization server MAC key\0').update(key.privateJwk.d).digest('base64url');
  return createKeyring(secret);
}
