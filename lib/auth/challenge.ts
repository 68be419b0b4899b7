/**
 * Bearer challenges (RFC 6750 §3, RFC 9728 §5.1, MCP authorization §Protected Resource Metadata Discovery and
 * §Scope Challenge Handling): 401 names the metadata URL and the scopes to ask for; 403 insufficient_scope
 * names the scopes needed plus those already granted, so a client can step up without losing any.
 */

import { refuse } from '../http/replies.js';

/** The parameters of a Bearer challenge (RFC 6750 §3). */
export interface ChallengeParams {
  /** Where a client finds how to sign in; absent when the server has no authorization server (API keys only). */
  resourceMetadata?: string;
  scopes: string[];
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  /** The reply's message when there is no error description: what credential to send. */
  prompt?: string;
}

const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

/** The `WWW-Authenticate` value; quotes and backslashes are dropped from values rather than escaped. */
export function bearerChallenge({ resourceMetadata, scopes, error, description }: ChallengeParams): string {
  const params = [
    ...(error ? [`error=${quote(error)}`] : []),
    ...(description ? [`error_description=${quote(description)}`] : []),
    ...(resourceMetadata ? [`resource_metadata=${quote(resourceMetadata)}`] : []),
    ...(scopes.length ? [`scope=${quote(scopes.join(' '))}`] : []),
  ];
  // RFC 7235 §2.1: a challenge's parameters are optional, so `Bearer` alone is one (API keys only: nothing to point to).
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

/** 401 (or 400 for a malformed request, RFC 6750 §3.1) with the challenge and a JSON-RPC error body. */
export function challengeReply(params: ChallengeParams): Response {
  const status = params.error === 'invalid_request' ? 400 : params.error === 'insufficient_scope' ? 403 : 401;
  const message = params.description ?? params.prompt ?? 'Authorization required: send an OAuth bearer token.';
  return refuse(status, message, { 'www-authenticate': bearerChallenge(params) });
}
