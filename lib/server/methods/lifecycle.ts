/** initialize (legacy), server/discover (modern), ping and logging/setLevel. */

import { INVALID_PARAMS, McpError } from '../../protocol/errors.js';
import { isLogLevel } from '../../protocol/methods.js';
import { SUPPORTED_VERSIONS, negotiateLegacyVersion } from '../../protocol/revisions.js';
import type { RequestContext } from '../context.js';
import type { Server } from '../server.js';

export function initialize(server: Server, params: Record<string, unknown>) {
  return {
    protocolVersion: negotiateLegacyVersion(params.protocolVersion),
    capabilities: server.capabilities.legacy,
    serverInfo: server.info,
    ...(server.instructions ? { instructions: server.instructions } : {}),
  };
}

export function discover(server: Server, _params: Record<string, unknown>, ctx: RequestContext) {
  return {
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: server.capabilities.modern,
    ...(server.instructions ? { instructions: server.instructions } : {}),
    ...cacheHints(server.listTtlMs, ctx),
  };
}

export function ping() {
  return {};
}

/** Accepted and answered `{}`; without sessions the level cannot outlive this request (docs/protocol.md "Both eras on one endpoint"). */
export function setLogLevel(_server: Server, params: Record<string, unknown>) {
  if (!isLogLevel(params.level)) throw new McpError(INVALID_PARAMS, `Invalid log level: ${String(params.level)}.`);
  return {};
}

/** `ttlMs` + `cacheScope` (modern wire only); private once results may depend on who asks, or when `scope` says so. */
export function cacheHints(ttlMs: number, ctx: RequestContext, scope?: 'private'): Record<string, unknown> {
  if (ctx.era !== 'modern') return {};
  return { ttlMs, cacheScope: scope ?? (ctx.principal ? 'private' : 'public') };
}
