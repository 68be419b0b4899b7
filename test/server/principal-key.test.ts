/**
 * A principal carries its kind (lib/server/principal-key.ts), and every store key derived from it stays the string an
 * earlier release wrote when an API key's subject was `key:<name>` and a token's subject was its bare `sub`: the
 * literals below are those earlier keys, so state a deployment already holds stays its owner's.
 */

import { describe, expect, test } from 'vitest';
import { createSessions } from '../../lib/http/session.js';
import { H_SESSION_ID } from '../../lib/protocol/headers.js';
import { Caller, ownStateKey, storeKeys } from '../../lib/server/caller.js';
import type { Principal } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { keyPrefixOf, principalKey } from '../../lib/server/principal-key.js';

const key: Principal = { kind: 'api-key', subject: 'ci', scopes: [] };
const token: Principal = { kind: 'issuer', subject: 'alice', scopes: [] };
const signedIn: Principal = { kind: 'authorization-server', subject: 'github:42', scopes: [] };
const inProcess: Principal = { subject: 'job-runner', scopes: [] };

describe('the keys of an API key\'s state are the ones kept under its `key:<name>` subject', () => {
  test('caller, owner, concurrency, tool-limit, budget and background keys', () => {
    const overHttp = new Caller(key, undefined, '10.0.0.1');
    expect(new Caller(key, 'nonce.mac').key).toBe('["key:ci","nonce.mac"]');
    expect(overHttp.key).toBe('["key:ci",null]');
    expect(overHttp.stateOwner).toBe('["key:ci"]');
    expect(overHttp.concurrencyKey).toBe('["principal","key:ci"]');
    expect(overHttp.toolLimitKey('search_*')).toBe('tool:["search_*","principal","key:ci"]');
    expect(overHttp.conversationOwner).toBe('key:ci');
    expect(new Caller(key).storeBudget).toEqual({ owner: '["key:ci"]', class: 'principal' });
    expect(overHttp.tokenBudgetKey()).toBe(new Caller({ subject: 'key:ci' }, undefined, '10.0.0.1').tokenBudgetKey());
    expect(overHttp.tokenBudgetKey()).toContain('"key:ci"');
    expect(new Caller(key).backgroundKey).toBe('["owner","[\\"key:ci\\"]"]');
  });

  test('conversations, tasks and a deployment\'s own state', () => {
    const caller = new Caller(key);
    expect(storeKeys.conversation(caller.conversationOwner, 'default', 'c1')).toBe('conv:["key:ci","default","c1"]');
    expect(storeKeys.task(caller.taskOwner, 't1')).toBe('task:["[\\"key:ci\\",null]","t1"]');
    expect(ownStateKey(caller.stateOwner!, ['notes'])).toBe('own:["[\\"key:ci\\"]","notes"]');
  });

  test('a session id issued to the key by an earlier release (bound to `key:ci`) still verifies for it, and not for a token', async () => {
    const keyring = createKeyring('a secret of the deployment');
    const earlier = await keyring.issue('mcp-session', 'key:ci');
    const sessions = createSessions(keyring);
    const request = new Request('http://localhost/mcp', { method: 'POST', headers: { [H_SESSION_ID]: earlier } });
    expect(await sessions.read(request, key)).toBe(earlier);
    expect(await sessions.read(request, { kind: 'issuer', subject: 'ci', scopes: [] })).toBeInstanceOf(Response);
    expect(principalKey(key)).toBe('key:ci');
  });
});

describe('a token\'s state is keyed by its bare `sub`, whichever server issued it', () => {
  test('an external issuer\'s, the built-in server\'s, and a principal named in process', () => {
    expect(new Caller(token, 's').key).toBe('["alice","s"]');
    expect(new Caller(signedIn).conversationOwner).toBe('github:42');
    expect(new Caller(inProcess, undefined, '::1').concurrencyKey).toBe('["principal","job-runner"]');
  });
});

test('a kind added later keys its state in a namespace of its own, which no bare subject can name by accident', () => {
  expect(keyPrefixOf('vercel-oidc')).toBe('vercel-oidc:');
  expect(principalKey({ kind: 'vercel-oidc', subject: 'ci' })).toBe('vercel-oidc:ci');
  // Names on Object.prototype are kinds like any other, not the prefixes of a lookup table.
  expect(keyPrefixOf('constructor')).toBe('constructor:');
});
