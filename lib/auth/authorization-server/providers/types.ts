/** What a provider people sign in with offers the built-in server (index.ts picks one). */

import type { UpstreamIdentity } from '../allow-list.js';
import type { ProviderFailure } from './http.js';

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
