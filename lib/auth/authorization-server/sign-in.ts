/**
 * The server's own sign-in at the provider, for one pending request: its `state` is sealed (the request's id and
 * the origin that started it), its PKCE verifier and OpenID nonce derive from the id under the server's key, so
 * nothing is stored and no other party can produce them. A callback whose state names another origin (a preview
 * deployment whose provider callback is this deployment's, AUTH_SERVER_CALLBACK_URL) is handed on to that origin:
 * only an origin a deployment with this key sealed, so it is no open redirect. The verifier and nonce are derived
 * again at the callback under the key that sealed the state, so a sign-in that spans a key rotation completes.
 */

import type { Keyring } from '../../server/keyring.js';
import type { ServerKeyring } from './keyring.js';
import { seal, unsealWith } from './seal.js';

const STATE_LABEL = 'oauth-provider-state';
const MAX_STATE_CHARS = 1024;

export interface ProviderState {
  /** The pending request's id. */
  i: string;
  /** The origin that started the sign-in. */
  o: string;
}

export const sealProviderState = (keyring: Keyring, id: string, origin: string) => seal(keyring, STATE_LABEL, { i: id, o: origin } satisfies ProviderState);

/** The state a callback carries, and the keyring it was sealed under (for signInSecrets). */
export const openProviderState = (keyring: ServerKeyring, state: unknown) => unsealWith<ProviderState>(keyring, STATE_LABEL, state, MAX_STATE_CHARS);

/** The PKCE verifier (44 characters, RFC 7636 §4.1), its S256 challenge, and the nonce of sign-in `id`, under `keyring`'s key. */
export async function signInSecrets(keyring: Keyring, id: string): Promise<{ verifier: string; challenge: string; nonce: string }> {
  const verifier = `${await keyring.mac('oauth-provider-pkce-1', id)}${await keyring.mac('oauth-provider-pkce-2', id)}`;
  const challenge = process.getBuiltinModule('node:crypto').createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge, nonce: await keyring.mac('oauth-provider-nonce', id) };
}
