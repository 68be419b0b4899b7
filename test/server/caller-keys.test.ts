/**
 * Every key the caller's value gives (lib/server/caller.ts), pinned as the literal strings state is stored under today:
 * for a principal (with and without a session), a session-only caller, an address-only caller, and the callers of an
 * in-process connection (no address). A change to how any key is derived fails here before it reaches a store.
 */

import { describe, expect, test } from 'vitest';
import { Caller, ownStateKey, storeKeys } from '../../lib/server/caller.js';
import type { Principal } from '../../lib/server/context.js';

const alice: Principal = { kind: 'issuer', subject: 'alice', scopes: [] };
const ci: Principal = { kind: 'api-key', subject: 'ci', scopes: [] };
const SESSION = 'nonce.mac';
const ADDRESS = '192.0.2.7';

/** What a request's caller is keyed by: over HTTP it has an address; in process it has none. */
function keysOf(principal: Principal | undefined, session: string | undefined, address: string | undefined) {
  const caller = new Caller(principal, session, address);
  // Rates count a principal, else an address: a caller with neither is never counted (in process, limits are the HTTP caller's).
  const counted = address !== undefined || principal !== undefined;
  return {
    key: caller.key,
    stateOwner: caller.stateOwner,
    conversationOwner: caller.conversationOwner,
    taskOwner: caller.taskOwner,
    taskQuota: caller.taskQuota,
    concurrency: caller.concurrencyKey,
    toolLimit: counted ? caller.toolLimitKey('search_*') : undefined,
    tokens: counted ? caller.tokenBudgetKey() : undefined,
    agentTokens: counted ? caller.tokenBudgetKey('writer') : undefined,
    background: caller.backgroundKey,
    storeBudget: caller.storeBudget,
    conversation: storeKeys.conversation(caller.conversationOwner, 'default', 'c1'),
    task: storeKeys.task(caller.taskOwner, 't1'),
    ownState: caller.stateOwner === undefined ? undefined : ownStateKey(caller.stateOwner, ['notes']),
  };
}

describe('the keys of a caller with a principal', () => {
  test('with the session the server issued it (2025 wire)', () => {
    expect(keysOf(alice, SESSION, ADDRESS)).toEqual({
      key: '["alice","nonce.mac"]',
      stateOwner: '["alice"]',
      conversationOwner: 'alice',
      taskOwner: '["alice","nonce.mac"]',
      taskQuota: { caller: '["alice"]', anonymous: false },
      concurrency: '["principal","alice"]',
      toolLimit: 'tool:["search_*","principal","alice"]',
      tokens: 'tokens:["principal","alice"]',
      agentTokens: 'tokens:["agent","writer","principal","alice"]',
      background: '["principal","alice"]',
      storeBudget: { owner: '["alice"]', class: 'principal' },
      conversation: 'conv:["alice","default","c1"]',
      task: 'task:["[\\"alice\\",\\"nonce.mac\\"]","t1"]',
      ownState: 'own:["[\\"alice\\"]","notes"]',
    });
  });

  test('without a session (2026 wire), an API key', () => {
    expect(keysOf(ci, undefined, ADDRESS)).toEqual({
      key: '["key:ci",null]',
      stateOwner: '["key:ci"]',
      conversationOwner: 'key:ci',
      taskOwner: '["key:ci",null]',
      taskQuota: { caller: '["key:ci"]', anonymous: false },
      concurrency: '["principal","key:ci"]',
      toolLimit: 'tool:["search_*","principal","key:ci"]',
      tokens: 'tokens:["principal","key:ci"]',
      agentTokens: 'tokens:["agent","writer","principal","key:ci"]',
      background: '["principal","key:ci"]',
      storeBudget: { owner: '["key:ci"]', class: 'principal' },
      conversation: 'conv:["key:ci","default","c1"]',
      task: 'task:["[\\"key:ci\\",null]","t1"]',
      ownState: 'own:["[\\"key:ci\\"]","notes"]',
    });
  });
});

test('the keys of a caller with only a session the server issued, and its address', () => {
  expect(keysOf(undefined, SESSION, ADDRESS)).toEqual({
    key: '[null,"nonce.mac"]',
    stateOwner: '[null,"nonce.mac"]',
    conversationOwner: '',
    taskOwner: '[null,"nonce.mac"]',
    taskQuota: { caller: '[null,"nonce.mac"]', anonymous: true },
    concurrency: '["ip","192.0.2.7"]',
    toolLimit: 'tool:["search_*","ip","192.0.2.7"]',
    tokens: 'tokens:["ip","192.0.2.7"]',
    agentTokens: 'tokens:["agent","writer","ip","192.0.2.7"]',
    background: '["ip","192.0.2.7"]',
    storeBudget: { owner: '[null,"nonce.mac"]', class: 'session' },
    conversation: 'conv:["","default","c1"]',
    task: 'task:["[null,\\"nonce.mac\\"]","t1"]',
    ownState: 'own:["[null,\\"nonce.mac\\"]","notes"]',
  });
});

test('the keys of a caller with only an address', () => {
  expect(keysOf(undefined, undefined, ADDRESS)).toEqual({
    key: undefined,
    stateOwner: undefined,
    conversationOwner: '',
    taskOwner: '',
    taskQuota: { caller: undefined, anonymous: true },
    concurrency: '["ip","192.0.2.7"]',
    toolLimit: 'tool:["search_*","ip","192.0.2.7"]',
    tokens: 'tokens:["ip","192.0.2.7"]',
    agentTokens: 'tokens:["agent","writer","ip","192.0.2.7"]',
    background: '["ip","192.0.2.7"]',
    storeBudget: { owner: '["ip","192.0.2.7"]', class: 'anonymous' },
    conversation: 'conv:["","default","c1"]',
    task: 'task:["","t1"]',
    ownState: undefined,
  });
});

describe('the keys of an in-process connection: its own session, no address', () => {
  test('with a principal the deployment names', () => {
    expect(keysOf({ subject: 'job-runner', scopes: [] }, 'conn-1', undefined)).toEqual({
      key: '["job-runner","conn-1"]',
      stateOwner: '["job-runner"]',
      conversationOwner: 'job-runner',
      taskOwner: '["job-runner","conn-1"]',
      taskQuota: { caller: '["job-runner"]', anonymous: false },
      concurrency: undefined,
      toolLimit: 'tool:["search_*","principal","job-runner"]',
      tokens: 'tokens:["principal","job-runner"]',
      agentTokens: 'tokens:["agent","writer","principal","job-runner"]',
      background: '["owner","[\\"job-runner\\"]"]',
      storeBudget: { owner: '["job-runner"]', class: 'principal' },
      conversation: 'conv:["job-runner","default","c1"]',
      task: 'task:["[\\"job-runner\\",\\"conn-1\\"]","t1"]',
      ownState: 'own:["[\\"job-runner\\"]","notes"]',
    });
  });

  test('without one', () => {
    expect(keysOf(undefined, 'conn-1', undefined)).toEqual({
      key: '[null,"conn-1"]',
      stateOwner: '[null,"conn-1"]',
      conversationOwner: '',
      taskOwner: '[null,"conn-1"]',
      taskQuota: { caller: '[null,"conn-1"]', anonymous: true },
      concurrency: undefined,
      toolLimit: undefined,
      tokens: undefined,
      agentTokens: undefined,
      background: '["owner","[null,\\"conn-1\\"]"]',
      storeBudget: { owner: '[null,"conn-1"]', class: 'session' },
      conversation: 'conv:["","default","c1"]',
      task: 'task:["[null,\\"conn-1\\"]","t1"]',
      ownState: 'own:["[null,\\"conn-1\\"]","notes"]',
    });
  });
});
