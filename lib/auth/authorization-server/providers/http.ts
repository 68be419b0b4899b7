/**
 * Requests to the sign-in provider (GitHub, an OpenID Connect provider), each bounded: 10 s for the whole
 * exchange, 256 KiB of reply read (counted as read), redirects not followed. A failure is a value with a detail for
 * the operator's log; the person is only told the provider did not answer as expected.
 */

import { readCappedText } from '../../../http/body.js';

export const PROVIDER_TIMEOUT_MS = 10_000;
export const PROVIDER_MAX_BYTES = 256 * 1024;

/** Why a provider request failed, for the operator's log. */
export interface ProviderFailure {
  failure: string;
}

export const isFailure = (value: unknown): value is ProviderFailure =>
  typeof value === 'object' && value !== null && 'failure' in value;

/** The JSON reply of `url` (status 2xx), or why there is none. */
export async function providerJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown } | ProviderFailure> {
  const where = new URL(url);
  const what = `${init.method ?? 'GET'} ${where.origin}${where.pathname}`;
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    return { failure: `${what}: ${(error as Error).name === 'TimeoutError' ? `no answer within ${PROVIDER_TIMEOUT_MS} ms` : String(error)}` };
  }
  let text: string | undefined;
  try {
    text = await readCappedText(response, PROVIDER_MAX_BYTES);
  } catch {
    return { failure: `${what}: the reply broke off` };
  }
  if (text === undefined) return { failure: `${what}: the reply exceeded ${PROVIDER_MAX_BYTES} bytes` };
  if (response.status < 200 || response.status > 299) return { failure: `${what}: HTTP ${response.status} ${text.slice(0, 500)}` };
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { failure: `${what}: the reply is not JSON` };
  }
}
