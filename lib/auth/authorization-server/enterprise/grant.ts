/**
 * The JWT bearer grant with an ID-JAG (RFC 7523 §2.1, draft-ietf-oauth-identity-assertion-authz-grant §4.4, MCP
 * Enterprise-Managed Authorization §5): a client trades the grant an enterprise identity provider issued it for an
 * access token of this server, with no consent page: the provider's policy decided. Checked here, beyond the
 * assertion itself (assertion.ts):
 * - the client (§5.1, RFC 6749 §2.3): the one the request authenticates, by the secret the provider's entry keeps
 *   the SHA-256 of (client_secret_basic or client_secret_post), or by its `client_id` alone when the entry lists it as
 *   public (`none`, as every other client here); the assertion's `client_id` names it, and the entry lists it;
 * - single use: the `jti` is spent once the assertion verifies and its client authenticates, whatever follows,
 *   atomically in the store through the security budget, so two instances cannot both redeem it; the record lives
 *   until the assertion expires (§7.4.2);
 * - the resource: the assertion's `resource`, when present, and the request's, when given, are this deployment's MCP
 *   URL; the token's audience is that URL (§5.1, §7.6.2);
 * - scopes: the assertion's must be among those the provider's entry lists (§7.6.2), `offline_access` aside; the token
 *   gets those the request asks for among them, or all of them when it asks for none (§7.2.1, RFC 6749 §3.3).
 * No refresh token: a client renews by asking the provider for a new ID-JAG, so access stays the provider's to give
 * and to revoke.
 */

import { sha256Hex } from '../../../digest.js';
import { MCP_PATHS, mcpUrl } from '../../../http/public-url.js';
import { H_RETRY_AFTER } from '../../../protocol/headers.js';
import { authorizationKeys } from '../../../server/caller.js';
import { sameMac } from '../../../server/keyring.js';
import { clientDigest } from '../clients.js';
import type { Reached, ServerContext } from '../context.js';
import type { Grant } from '../grants.js';
import { oauthError } from '../replies.js';
import { SKEW_SEC, type IdJag } from './assertion.js';
import { subjectOf } from './config.js';

/** RFC 7523 §4.1: the grant type. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** draft-ietf-oauth-identity-assertion-authz-grant §7.2: what `authorization_grant_profiles_supported` names. */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
const OFFLINE = 'offline_access';

const invalidGrant = (description: string) => oauthError(400, 'invalid_grant', description);
const split = (scopes: string) => scopes.split(' ').filter((scope) => scope && scope !== OFFLINE);

const BASIC = /^Basic +([A-Za-z0-9+/]+=*)$/i;
const unauthenticated = (basic: boolean) =>
  oauthError(401, 'invalid_client', 'The client could not be authenticated.', basic ? { 'www-authenticate': 'Basic realm="agent-mcp"' } : {});

interface Presented {
  id: string;
  secret?: string;
  basic: boolean;
}

/** The client a token request names and the secret it presents, by one method (RFC 6749 §2.3.1), or the refusal. */
function presentedClient(request: Request, form: URLSearchParams): Presented | Response {
  if (form.has('client_assertion')) return oauthError(401, 'invalid_client', 'This server does not take client assertions: authenticate with a client secret, or as a public client.');
  const header = request.headers.get('authorization')?.trim();
  const bodyId = form.get('client_id') ?? undefined;
  if (!header) return bodyId ? { id: bodyId, ...(form.has('client_secret') ? { secret: form.get('client_secret')! } : {}), basic: false } : oauthError(400, 'invalid_request', 'The token request names no client (client_id).');
  if (form.has('client_secret')) return oauthError(400, 'invalid_request', 'Authenticate the client one way: HTTP Basic or client_secret in the body, not both.');
  const credentials = BASIC.exec(header)?.[1];
  const decoded = credentials === undefined ? '' : Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return unauthenticated(true);
  // RFC 6749 §2.3.1: both halves are form-encoded before they are joined.
  const decode = (part: string) => { try { return decodeURIComponent(part.replace(/\+/g, ' ')); } catch { return undefined; } };
  const [id, secret] = [decode(decoded.slice(0, colon)), decode(decoded.slice(colon + 1))];
  if (!id || secret === undefined) return unauthenticated(true);
  if (bodyId !== undefined && bodyId !== id) return oauthError(400, 'invalid_request', 'The client_id in the body is not the client HTTP Basic authenticates.');
  return { id, secret, basic: true };
}

/** Whether `client` proves itself as the provider's entry registered it: its secret, or none for a public client. */
async function authenticates(client: Presented, registered: string | undefined): Promise<boolean> {
  if (registered === undefined) return client.secret === undefined;
  return client.secret !== undefined && sameMac(await sha256Hex(client.secret), registered);
}

/** The grant an ID-JAG in the request is worth, with the client it was issued to, or the refusal to send. */
export async function redeemAssertion(request: Request, form: URLSearchParams, ctx: ServerContext, { origin }: Reached): Promise<(Grant & { clientId: string }) | Response> {
  const check = ctx.enterprise;
  if (!check) return oauthError(400, 'unsupported_grant_type', 'This server names no identity provider whose grants it accepts.');
  const client = presentedClient(request, form);
  if (client instanceof Response) return client;
  const clientId = client.id;
  const assertions = form.getAll('assertion');
  if (assertions.length !== 1 || !assertions[0]) return oauthError(400, 'invalid_request', 'The token request must carry one assertion.');
  const checked = await check(assertions[0], origin);
  if (!checked.ok) {
    if ('unavailable' in checked) {
      ctx.log.enterprise.note(checked.unavailable);
      return oauthError(503, 'temporarily_unavailable', 'The identity provider\'s keys cannot be fetched right now; try again shortly.', { [H_RETRY_AFTER]: '5' });
    }
    ctx.log.enterprise.note(checked.description);
    return invalidGrant(checked.description);
  }
  const { grant: jag } = checked;
  if (jag.clientId !== clientId) return refused(ctx, jag, invalidGrant('The assertion was issued to another client.'));
  if (!jag.idp.clients.has(clientId)) return refused(ctx, jag, oauthError(400, 'unauthorized_client', 'This client may not redeem this identity provider\'s grants.'));
  if (!(await authenticates(client, jag.idp.clients.get(clientId)))) return refused(ctx, jag, unauthenticated(client.basic));
  if (!(await spend(ctx, jag))) {
    ctx.log.reuse.note(`an ID-JAG of ${jag.idp.issuer} presented again`);
    return invalidGrant('The assertion was already used.');
  }

  const ours = MCP_PATHS.map((path) => mcpUrl(origin, path));
  if (jag.resource !== undefined && !ours.includes(jag.resource)) return refused(ctx, jag, invalidGrant('The assertion was issued for another resource.'));
  const asked = form.getAll('resource');
  if (asked.length > 1 || (asked.length === 1 && (!ours.includes(asked[0]!) || (jag.resource !== undefined && asked[0] !== jag.resource)))) {
    return oauthError(400, 'invalid_target', `This server issues tokens only for its MCP endpoint, ${mcpUrl(origin)}, and as the assertion names it.`);
  }

  const offered = jag.scope === undefined ? jag.idp.scopes : split(jag.scope);
  if (offered.some((scope) => !jag.idp.scopes.includes(scope))) return refused(ctx, jag, invalidGrant('The assertion carries a scope this server does not grant through its identity provider.'));
  const wanted = split(form.get('scope') ?? '');
  const scopes = wanted.length ? wanted.filter((scope) => offered.includes(scope)) : offered;
  if (wanted.length && !scopes.length) return oauthError(400, 'invalid_scope', 'None of the scopes asked for is in the assertion.');

  return { clientId, subject: subjectOf(jag.idp, jag.sub), client: clientDigest(clientId), scopes: [...new Set(scopes)], resource: asked[0] ?? jag.resource ?? ours[0]! };
}

/** Claims the assertion's single use until it expires (plus the skew it is accepted within); false when it was used. */
async function spend(ctx: ServerContext, jag: IdJag): Promise<boolean> {
  const key = authorizationKeys.assertionUsed(await sha256Hex(JSON.stringify([jag.idp.issuer, jag.jti])));
  const ttlMs = Math.max(1000, (jag.exp + SKEW_SEC) * 1000 - Date.now());
  return ctx.store.withBudget('security').claim(key, 1, ttlMs);
}

/** A refusal after the assertion verified: the operator is told which provider's grant, never the assertion. */
function refused(ctx: ServerContext, jag: IdJag, reply: Response): Response {
  ctx.log.enterprise.note(`an ID-JAG of ${jag.idp.issuer} for client ${JSON.stringify(jag.clientId.slice(0, 200))}`);
  return reply;
}
