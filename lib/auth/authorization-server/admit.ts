/**
 * Whether a person the provider signed in may have a code (AUTH_SERVER_ALLOW, allow-list.ts). An email, a domain or
 * a GitHub id entry decides alone. A GitHub login or organisation name can pass to another account or organisation
 * after a rename, so a name is bound, the first time it admits someone, to the immutable id GitHub gives it then,
 * kept in the store through the security budget and renewed with each sign-in it admits; from then on it admits
 * only that id. The operator is told the id, to write it in the allow-list (`github:id:<n>`) and rely on nothing kept.
 */

import { authorizationKeys } from '../../server/caller.js';
import type { UpstreamIdentity } from './allow-list.js';
import type { ServerContext } from './context.js';

/** How long a name stays bound to its id after the last sign-in it admitted. */
export const NAME_BINDING_TTL_MS = 400 * 24 * 3600_000;

export async function admit(ctx: ServerContext, identity: UpstreamIdentity): Promise<boolean> {
  const admissions = ctx.config.allow.admissions(identity);
  if (admissions.some((admission) => admission.by === 'entry')) return true;
  const security = ctx.store.withBudget('security');
  const renamed: string[] = [];
  for (const admission of admissions) {
    if (admission.by !== 'name') continue;
    const { kind, name, id } = admission;
    const key = authorizationKeys.githubName(kind, name);
    // A claim, so that of two instances binding a name at once one wins and the other reads what it bound.
    const claimed = await security.claim(key, id, NAME_BINDING_TTL_MS);
    if (claimed) ctx.log.bound.note(`${kind}:${name} is ${kind === 'github' ? `account ${id}; write github:id:${id} to keep it so` : `organisation ${id}`}`);
    const bound = claimed ? id : await ctx.store.get<number>(key);
    if (bound === id) {
      if (!claimed) await security.set(key, id, NAME_BINDING_TTL_MS);
      return true;
    }
    renamed.push(`${kind}:${name} is bound to ${bound === undefined ? 'another id' : `id ${bound}`}, not ${id}`);
  }
  ctx.log.refused.note(renamed.length ? `${identity.subject} (${renamed.join('; ')}: a rename?)` : identity.subject);
  return false;
}
