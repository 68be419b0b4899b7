/**
 * A header read is remembered for the last value only: the same value is not read again, another value is, and
 * the verdicts of the endpoint's checks follow whatever value each request carries.
 */

import { expect, test } from 'vitest';
import { rememberLast } from '../../lib/http/last-value.js';
import { checkAccept, checkContentType } from '../../lib/http/negotiate.js';
import { createOriginCheck } from '../../lib/http/origin.js';

test('the same value is read once; a new value is read, and then the old one again', () => {
  const seen: Array<string | null> = [];
  const length = rememberLast((value) => (seen.push(value), value?.length ?? -1));
  expect([length('ab'), length('ab'), length('abc'), length(null), length('ab')]).toEqual([2, 2, 3, -1, 2]);
  expect(seen).toEqual(['ab', 'abc', null, 'ab']);
});

const post = (headers: Record<string, string>) => new Request('http://localhost/mcp', { method: 'POST', headers });

test('Accept and Content-Type verdicts follow each request as the values alternate', () => {
  const both = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const jsonOnly = { accept: 'application/json', 'content-type': 'text/plain' };
  for (let round = 0; round < 2; round++) {
    expect(checkAccept(post(both))).toBeUndefined();
    expect(checkContentType(post(both))).toBeUndefined();
    expect(checkAccept(post(jsonOnly))?.status).toBe(406);
    expect(checkContentType(post(jsonOnly))?.status).toBe(415);
  }
});

test('the Host check follows each request as hosts alternate', () => {
  const { checkOrigin } = createOriginCheck({ local: true, allowedOrigins: new Set() });
  const withHost = (host: string) => new Request('http://localhost/mcp', { method: 'POST', headers: { host } });
  for (let round = 0; round < 2; round++) {
    expect(checkOrigin(withHost('localhost:3000'))).toBeUndefined();
    expect(checkOrigin(withHost('evil.example'))?.status).toBe(403);
    expect(checkOrigin(withHost('[::1]@evil.com'))?.status).toBe(400);
  }
});
