/** What every endpoint of the built-in server works with, built once per instance (handler.ts). */

import type { Store } from '../../store/types.js';
import type { CountedWarning } from '../../warn.js';
import type { VerifyToken } from '../verify.js';
import type { AuthServerConfig } from './config.js';
import type { ServerKeyring } from './keyring.js';
import type { CheckAssertion } from './enterprise/assertion.js';
import type { SignIn } from './providers/index.js';
import type { SignAccessToken } from './signer.js';

export interface ServerContext {
  config: AuthServerConfig;
  keyring: ServerKeyring;
  store: Store;
  signIn: SignIn;
  sign: SignAccessToken;
  /** Verifies an access token this server signed, as the MCP endpoint does (for revocation: revoke.ts). */
  verify: VerifyToken;
  /** Checks enterprise ID-JAGs (AUTH_ENTERPRISE_IDPS); absent when none is named. */
  enterprise?: CheckAssertion;
  /** Operator log lines, counted (lib/warn.ts). */
  log: {
    refused: CountedWarning;
    /** An AUTH_SERVER_ALLOW name bound to its GitHub id (admit.ts). */
    bound: CountedWarning;
    provider: CountedWarning;
    reuse: CountedWarning;
    store: CountedWarning;
    /** Requests refused at a bound: a client's document or registration, a state or request too large. */
    bounds: CountedWarning;
    /** Enterprise ID-JAGs refused, or whose provider's keys could not be had. */
    enterprise: CountedWarning;
  };
}

/** One request's view: the public origin it reached, which is this server's issuer there. */
export interface Reached {
  origin: string;
  /** Cookies get `Secure` over https. */
  secure: boolean;
}
