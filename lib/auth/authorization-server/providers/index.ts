/**
 * The provider people sign in with, behind one interface: where to send the browser, and who came back. The
 * server's own PKCE (S256) and `state` protect each sign-in at the provider (RFC 9700 §2.1.1, §4.7), and an
 * OpenID provider's ID token is checked against its nonce, issuer and audience.
 */

import type { AllowList } from '../allow-list.js';
import type { Provider } from '../config.js';
import { createGitHubSignIn } from './github.js';
import { createOidcSignIn } from './oidc.js';
import type { SignIn } from './types.js';

export type { SignIn, SignInFinish, SignInStart } from './types.js';

export function createSignIn(provider: Provider, allow: AllowList): SignIn {
  return provider.kind === 'github' ? createGitHubSignIn(provider, allow) : createOidcSignIn(provider);
}
