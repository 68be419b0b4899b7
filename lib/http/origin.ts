/**
 * DNS-rebinding protection (transports §Security Warning; 2025-11-25: an invalid Origin gets 403).
 * Served locally, only loopback hosts and origins pass; deployed, a browser origin must be our own public
 * origin or one listed in MCP_ALLOWED_ORIGINS. Requests without an Origin (non-browser clients) pass.
 */

import type { Config } from '../config.js';
import { parseAuthority, type Authority } from './authority.js';
import { rememberLast } from './last-value.js';
import { refuse } from './replies.js';

export interface OriginPolicy {
  /** True when serving on a developer machine: the Host header must then be a loopback name. */
  local: boolean;
  /** Our canonical origin when known (PUBLIC_URL), e.g. https://agent.example.com. */
  publicOrigin?: string;
  allowedOrigins: ReadonlySet<string>;
}

/** The policy the configuration sets (docs/configuration.md "Configuration": PUBLIC_URL, VERCEL, MCP_ALLOWED_ORIGINS). */
export function originPolicyOf(config: Config): OriginPolicy {
  return { local: config.local, publicOrigin: config.publicUrl, allowedOrigins: new Set(config.allowedOrigins) };
}

/** Loopback names as a URL spells its hostname. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

export function createOriginCheck(policy: OriginPolicy) {
  // Shared by every request with the same Host, so frozen.
  const authorityOf = rememberLast((host) => {
    const authority = parseAuthority(host);
    return authority && Object.freeze(authority);
  });

  function isAllowedOrigin(origin: string, host?: string | null): boolean {
    if (policy.allowedOrigins.has(origin)) return true;
    if (policy.local) return isLoopbackOrigin(origin);
    if (policy.publicOrigin !== undefined && origin === policy.publicOrigin) return true;
    return host != null && origin === `https://${host}`;
  }

  /** The request's Host as an authority, or 400 when it is not one (RFC 9112 §3.2), 403 when foreign (served locally). */
  function readHost(request: Request): Authority | Response {
    const authority = authorityOf(request.headers.get('host') ?? new URL(request.url).host);
    if (!authority) return refuse(400, 'Bad Request: the Host header is not a valid host[:port].');
    if (policy.local && !LOOPBACK.has(authority.hostname)) return refuse(403, 'Forbidden: this host is not served here (only loopback hosts are, locally).');
    return authority;
  }

  /** The Host half of checkOrigin, for handlers that put the Host into what they answer (discovery documents). */
  function checkHost(request: Request): Response | undefined {
    const host = readHost(request);
    return host instanceof Response ? host : undefined;
  }

  /** 400/403 for a Host that is not an authority or is foreign, 403 for a foreign Origin; undefined when the request may go on. */
  function checkOrigin(request: Request): Response | undefined {
    const host = readHost(request);
    if (host instanceof Response) return host;
    const origin = request.headers.get('origin');
    if (origin !== null && !isAllowedOrigin(origin, host.host)) return refuse(403, 'Forbidden: this Origin is not allowed (MCP_ALLOWED_ORIGINS lists the allowed ones).');
    return undefined;
  }

  return { checkHost, checkOrigin, isAllowedOrigin: (origin: string) => isAllowedOrigin(origin) };
}
