/**
 * Requests to the sign-in provider (GitHub, an OpenID Connect provider) and for the issuer's metadata (lib/auth/keys.ts),
 * each bounded: 10 s for the whole exchange (or the caller's signal, if sooner), 256 KiB of reply read (counted as
 * read), redirects not followed: where keys and credentials are concerned a document is read where it was configured,
 * never where a reply points (docs/architecture.md rule 16). A failure is a value with a detail for the operator's log;
 * the person is only told the provider did not answer as expected.
 */

import { readCappedText } from '../../../http/body.js';

export const PROVIDER_TIMEOUT_MS = 10_000;
export const PROVIDER_MAX_BYTES = 256 * 1024;

/** A reply that names another URL: fetch would follow it; here it is a failure of its own. */
export const REDIRECTED = 'redirect';

/** Why a provider request failed, for the operator's log. */
export interface ProviderFailure {
  failure: string;
  /** What it met, in a word or two (the health probe's): `HTTP <status>`, REDIRECTED, `timeout`, `unavailable`, `more than <n> bytes`, `not JSON`. */
  error?: string;
}

export const isFailure = (value: unknown): value is ProviderFailure =>
  typeof value === 'object' && value !== null && 'failure' in value;

/** The JSON reply of `url` (status 2xx), or why there is none. */
export async function providerJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown } | ProviderFailure> {
  const where = new URL(url);
  const what = `${init.method ?? 'GET'} ${where.origin}${where.pathname}`;
  const timeout = AbortSignal.timeout(PROVIDER_TIMEOUT_MS);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal });
  } catch (error) {
    if (signal.aborted) return { failure: `${what}: no answer in time`, error: 'timeout' };
    return { failure: `${what}: ${String(error)}`, error: 'unavailable' };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { failure: `${what}: a redirect (HTTP ${response.status}), which is not followed`, error: REDIRECTED };
  }
  let text: string | undefined;
  try {
    text = await readCappedText(response, PROVIDER_MAX_BYTES);
  } catch {
    return { failure: `${what}: the reply broke off`, error: signal.aborted ? 'timeout' : 'unavailable' };
  }
  if (text === undefined) return { failure: `${what}: the reply exceeded ${PROVIDER_MAX_BYTES} bytes`, error: `more than ${PROVIDER_MAX_BYTES} bytes` };
  if (response.status < 200 || response.status > 299) return { failure: `${what}: HTTP ${response.status} ${text.slice(0, 500)}`, error: `HTTP ${response.status}` };
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { failure: `${what}: the reply is not JSON`, error: 'not JSON' };
  }
}
