/**
 * What the formats loaded on first use (index.ts `lazily`) share among themselves: reading one JSON event or body.
 * Only those formats import this module, so it rides in their chunks, never in the start-up file (kit.ts).
 */

import type { Kit } from './kit.js';
import type { UpstreamResponse, UpstreamTarget } from './request.js';

/** One event's JSON as an object, or the caller's "malformed reply" error (the upstream's text is not repeated to it). */
export function parseObject(kit: Kit, target: UpstreamTarget, data: string): Record<string, unknown> {
  const value = kit.upstreamJson(target, data);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new kit.AgentError(`Agent ${target.agentId}: the upstream sent a malformed reply.`, 'upstream_malformed_reply');
  }
  return value as Record<string, unknown>;
}

/** A whole (counted) body as text, for upstreams that answer one JSON document. */
export async function readAll(upstream: UpstreamResponse): Promise<string> {
  let text = '';
  for await (const chunk of upstream.chunks()) text += chunk;
  return text;
}

/** True when the upstream answered with an event stream rather than one JSON document. */
export const isEventStream = (kit: Kit, upstream: UpstreamResponse) => (upstream.response.headers.get('content-type') ?? '').includes(kit.EVENT_STREAM);

/** A call's arguments as the JSON object some wires want back (Anthropic's `input`); `{}` when they are not one. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch { /* not JSON: the tool's result already told the model so */ }
  return {};
}

/** A short line of upstream text for a progress note: one line, at most `max` characters. */
export function shortLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The longest upstream id (a Responses id, an A2A context or task id) kept with a conversation or sent back. */
export const MAX_UPSTREAM_ID_CHARS = 256;

/** An id the upstream gave, to keep in the store: a string of at most MAX_UPSTREAM_ID_CHARS, else the turn fails. */
export function upstreamId(kit: Kit, agentId: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (value.length > MAX_UPSTREAM_ID_CHARS) throw new kit.AgentError(`Agent ${agentId}: the upstream sent an id longer than ${MAX_UPSTREAM_ID_CHARS} characters.`);
  return value;
}
