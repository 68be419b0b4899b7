/**
 * The usage page as a function of its own (api/usage.ts), built from the environment on an instance's first request:
 * only what the page needs (the store, the sign-in modes, USAGE_ADMINS, the origin policy), so the MCP endpoint's
 * start carries none of it (docs/architecture.md rule 11). `npm start` builds the same handler over its app's store
 * and auth instead (scripts/serve.ts), so the page reads what that process counted.
 */

import { readApiKeys } from '../../auth/api-keys.js';
import { createBearerAuth, readSignIn, type BearerAuth } from '../../auth/index.js';
import { readConfig } from '../../config.js';
import { originPolicyOf, type OriginPolicy } from '../../http/origin.js';
import { selectStore } from '../../store/select.js';
import type { Store } from '../../store/types.js';
import { readUpstashConfig } from '../../store/upstash-config.js';
import { describeUsageAccess, readUsageAdmins } from './access.js';
import { createUsageHandler, type FetchHandler } from './handler.js';

type Env = Record<string, string | undefined>;

/**
 * The page over an app's store and auth, and who may read it in start-up's words; `openOnLoopback` for npm start.
 * Reads USAGE_ADMINS, throwing a TypeError naming it.
 */
export function usagePageOf(
  parts: { store: Store; auth?: BearerAuth; origin: OriginPolicy },
  env: Env,
  openOnLoopback = false,
): { handler: FetchHandler; access: string } {
  const admins = readUsageAdmins(env, { modes: parts.auth?.modes.length ?? 0, apiKeys: readApiKeys(env) });
  const open = openOnLoopback && parts.origin.local ? 'loopback: no sign-in; others: ' : '';
  const access = `${open}${describeUsageAccess(admins, Boolean(parts.auth))}`;
  return { handler: createUsageHandler({ ...parts, admins, openOnLoopback }), access };
}

/** api/usage.ts: the page from the environment, as a deployment serves it (never open without sign-in). */
export function createUsageFunction(env: Env = process.env): FetchHandler {
  const config = readConfig(env);
  const modes = readSignIn(env);
  for (const mode of modes) mode.checkServed?.(config, env);
  const auth = modes.length ? createBearerAuth(modes, env) : undefined;
  const { store } = selectStore(readUpstashConfig(env), env);
  return usagePageOf({ store, auth, origin: originPolicyOf(config) }, env).handler;
}
