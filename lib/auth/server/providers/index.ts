/**
 * The provider people sign in with, behind one interface: where to send the browser, and who came back. The
 * server's own PKCE (S256) and `state` protect each sign-in at the provider (RFC 9700 §2.1.1, §4.7), and an
 * OpenID provider's ID token is checked against its nonce, issuer and audience.
 */

import type { AllowList, UpstreamIdentity } from '../allow-list.js';
import type { Provider } from '../config.js';
import { createGitHubSignIn } from './github.js';
import type { ProviderFailure } from './http.js';
import { createOidcSignIn } from './oidc.js';

export interface SignInStart {
  callbackUrl: string;
  state: string;
  codeChallenge: string;
  nonce: string;
}

export interface SignInFinish {
  code: string;
  callbackUrl: string;
  codeVerifier: string;
  nonce: string;
}

export interface SignIn {
  /** The provider's name, as the consent page says it. */
  readonly name: string;
  /** The provider's authorization URL for one sign-in. */
  authorizationUrl(start: SignInStart): Promise<string | ProviderFailure>;
  /** The person the provider's code stands for, with what the allow-list needs to decide. */
  identify(finish: SignInFinish): Promise<UpstreamIdentity | ProviderFailure>;
}

export function createSignIn(provider: Provider, allow: AllowList): SignIn {
  return provider.kind === 'github' ? createGitHubSignIn(provider, allow) : createOidcSignIn(provider);
}
