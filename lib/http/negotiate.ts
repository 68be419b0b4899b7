/**
 * Content negotiation of a POST: the client must accept both JSON and SSE (transports §Sending Messages),
 * and must send JSON. The spec names no status; we answer as the SDKs do (406, 415).
 */

import { refuse } from './replies.js';
import { EVENT_STREAM } from '../protocol/headers.js';
import { rememberLast } from './last-value.js';

function mediaTypes(header: string | null): string[] {
  return (header ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()).filter(Boolean);
}

function accepts(types: string[], wanted: string): boolean {
  const [major] = wanted.split('/');
  return types.some((t) => t === wanted || t === '*/*' || t === `${major}/*`);
}

export function acceptsEventStream(request: Request): boolean {
  return accepts(mediaTypes(request.headers.get('accept')), EVENT_STREAM);
}

const acceptsBoth = rememberLast((header) => {
  const types = mediaTypes(header);
  return accepts(types, 'application/json') && accepts(types, EVENT_STREAM);
});

const isJson = rememberLast((header) => mediaTypes(header)[0] === 'application/json');

export function checkAccept(request: Request): Response | undefined {
  if (acceptsBoth(request.headers.get('accept'))) return undefined;
  return refuse(406, 'Not Acceptable: the Accept header must list application/json and text/event-stream.');
}

export function checkContentType(request: Request): Response | undefined {
  if (isJson(request.headers.get('content-type'))) return undefined;
  return refuse(415, 'Unsupported Media Type: the body must be application/json.');
}
