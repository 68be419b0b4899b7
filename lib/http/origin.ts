/**
 * DNS-rebinding protection (transports §Security Warning; 2025-11-25: an invalid Origin gets 403).
 * Served locally, only loopback hosts and origins pass; deployed, a browser origin must be our own public
 * origin or one listed in MCP_ALLOWED_ORIGINS. Requests without an Origin (non-browser clients) pass.
 */

import { refuse } from './replies.js';

export interface OriginPolicy {
  /** True when serving on a developer machine: the Host header must then be a loopback name. */
  local: boolean;
  /** Our canonical origin when known (PUBLIC_URL), e.g. https://agent.example.com. */
  publicOrigin?: string;
  allowedOrigins: ReadonlySet<string>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

export function createOriginCheck(policy: OriginPolicy) {
  function isAllowedOrigin(origin: string, host?: string | null): boolean {
    if (policy.allowedOrigins.has(origin)) return true;
    if (policy.local) return isLoopbackOrigin(origin);
    if (policy.publicOrigin !== undefined && origin === policy.publicOrigin) return true;
    return host != null && origin === `https://${host}`;
  }

  /** 403 for a foreign Host (served locally) or Origin; undefined when the request may go on. */
  function checkOrigin(request: Request): Response | undefined {
    const host = request.headers.get('host') ?? new URL(request.url).host;
    if (!URL.canParse(`http://${host}`)) return refuse(400, 'Bad Request: the Host header is not a valid host[:port].');
    if (policy.local && !LOOPBACK.has(hostnameOf(host).toLowerCase())) {
      return refuse(403, `Forbidden: host ${host} is not served here.`);
    }
    const origin = request.headers.get('origin');
    if (origin !== null && !isAllowedOrigin(origin, host)) return refuse(403, `Forbidden: origin ${origin} is not allowed.`);
    return undefined;
  }

  return { checkOrigin, isAllowedOrigin: (origin: string) => isAllowedOrigin(origin) };
}
