/**
 * MCP_MOUNTS and MCP_MOUNTS_WAIT_MS: validated at start-up; credentials come from the variables a mount
 * names, never from the JSON itself; misconfiguration is a TypeError naming the variable.
 */

import { describe, expect, test } from 'vitest';
import { callSettingsOf, readMountWait, readMounts, toMountConfig } from '../../lib/mounts/config.js';
import { createDefaultApp } from '../../lib/app.js';

const mounts = (value: unknown, env: Record<string, string> = {}) => readMounts({ MCP_MOUNTS: JSON.stringify(value), ...env });

describe('MCP_MOUNTS', () => {
  test('unset means no mounts, and the default app has none', () => {
    expect(readMounts({})).toEqual([]);
    expect(createDefaultApp({}).mounts).toBeUndefined();
  });

  test('scopes, when given, are kept for the mount\'s tools', () => {
    expect(mounts([{ name: 'a', url: 'https://x.example/mcp', scopes: ['docs:read'] }])[0]).toMatchObject({ scopes: ['docs:read'] });
  });

  test('a mount gets its defaults and the credentials its variables hold', () => {
    const [github] = mounts(
      [{ name: 'github', url: 'https://api.example.com/mcp', tokenEnv: 'GH_TOKEN', headersEnv: { 'x-team': 'TEAM_ID' } }],
      { GH_TOKEN: 'ghp_secret', TEAM_ID: 'team-7' },
    );
    expect(github).toEqual({
      name: 'github',
      url: 'https://api.example.com/mcp',
      headers: { 'x-team': 'team-7', authorization: 'Bearer ghp_secret' },
      era: 'legacy',
      connectTimeoutMs: 10_000,
      callTimeoutMs: 120_000,
      maxCallMs: 600_000,
      inputRounds: 10,
      maxQuestions: 20,
      maxReplyBytes: 4 * 1024 * 1024,
      maxListItems: 1000,
      maxListPages: 10,
    });
  });

  test.each([
    ['not JSON', '{', 'MCP_MOUNTS must be a JSON array of mount objects: the JSON ends too early, near `{`.'],
    ['an empty array', '[]', 'MCP_MOUNTS must be a JSON array of mount objects.'],
    ['a name with the separator', JSON.stringify([{ name: 'a.b', url: 'https://x.example/mcp' }]), 'names are 1-32 characters'],
    ['a non-http URL', JSON.stringify([{ name: 'a', url: 'ftp://x.example/mcp' }]), 'MCP_MOUNTS is invalid: 0.url'],
    ['an unknown era', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', era: 'v3' }]), 'MCP_MOUNTS is invalid: 0.era'],
    ['a zero maxCallMs', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxCallMs: 0 }]),
      'MCP_MOUNTS is invalid: 0.maxCallMs: must be a positive integer of milliseconds, at most 2147483647.'],
    ['a maxCallMs longer than a timer can wait', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxCallMs: 2 ** 31 }]),
      'MCP_MOUNTS is invalid: 0.maxCallMs: must be a positive integer of milliseconds, at most 2147483647.'],
    ['a fractional maxQuestions', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxQuestions: 2.5 }]),
      'MCP_MOUNTS is invalid: 0.maxQuestions: must be a positive integer.'],
    ['a zero inputRounds', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', inputRounds: 0 }]), 'MCP_MOUNTS is invalid: 0.inputRounds: must be a positive integer'],
    ['a zero maxReplyBytes', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxReplyBytes: 0 }]),
      'MCP_MOUNTS is invalid: 0.maxReplyBytes: must be a positive integer of bytes.'],
    ['a fractional maxListItems', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxListItems: 1.5 }]),
      'MCP_MOUNTS is invalid: 0.maxListItems: must be a positive integer.'],
    ['a maxListPages given as text', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', maxListPages: '10' }]),
      'MCP_MOUNTS is invalid: 0.maxListPages: must be a positive integer.'],
    ['an unknown key', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', retry: true }]), 'MCP_MOUNTS is invalid: 0.retry: is not a mount setting.'],
    ['inline headers', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', headers: { authorization: 'Bearer x' } }]),
      'MCP_MOUNTS: mount a inlines credentials; name the variables that hold them with tokenEnv or headersEnv.'],
    ['a variable that is not set', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', tokenEnv: 'MISSING_TOKEN' }]),
      'MCP_MOUNTS: mount a names MISSING_TOKEN, which is not set.'],
    ['scopes that are not names', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp', scopes: ['two words'] }]),
      'MCP_MOUNTS is invalid: 0.scopes: must be an array of scope names.'],
    ['a duplicate name', JSON.stringify([{ name: 'a', url: 'https://x.example/mcp' }, { name: 'a', url: 'https://y.example/mcp' }]),
      'MCP_MOUNTS: duplicate mount name "a".'],
  ])('%s is a TypeError at start-up', (_case, value, message) => {
    expect(() => readMounts({ MCP_MOUNTS: value })).toThrow(TypeError);
    expect(() => readMounts({ MCP_MOUNTS: value })).toThrow(message);
  });

  test('the default app refuses a bad MCP_MOUNTS when it is built', () => {
    expect(() => createDefaultApp({ MCP_MOUNTS: '[{"name":"a"}]' })).toThrow(/^MCP_MOUNTS is invalid/);
  });
});

describe('mounts added in code', () => {
  test('take headers directly, with the same defaults', () => {
    expect(toMountConfig({ name: 'docs', url: 'http://127.0.0.1:1/mcp', headers: { 'x-key': 'k' } }))
      .toMatchObject({ name: 'docs', headers: { 'x-key': 'k' }, era: 'legacy' });
  });

  test('a bad one is a TypeError naming the mount', () => {
    expect(() => toMountConfig({ name: 'docs', url: 'not a url' })).toThrow(/^Mount "docs" is invalid: url/);
  });
});

describe('what a forwarded call is held to', () => {
  test('every call setting as configured, defaults filled in, and none of the mount\'s URL or credentials', () => {
    const config = toMountConfig({ name: 'docs', url: 'https://docs.example/mcp', headers: { authorization: 'Bearer secret' }, maxQuestions: 3, scopes: ['docs:read'] });
    expect(callSettingsOf(config)).toEqual({ callTimeoutMs: 120_000, inputRounds: 10, maxCallMs: 600_000, maxQuestions: 3, scopes: ['docs:read'] });
    expect(JSON.stringify(callSettingsOf(config))).not.toContain('secret');
  });
});

describe('MCP_MOUNTS_WAIT_MS', () => {
  test.each([[undefined, 5_000], ['0', 0], ['250', 250]])('%s means %i ms', (value, expected) => {
    expect(readMountWait({ MCP_MOUNTS_WAIT_MS: value })).toBe(expected);
  });

  test.each(['-1', '1.5', 'soon'])('"%s" is a TypeError naming the variable', (value) => {
    expect(() => readMountWait({ MCP_MOUNTS_WAIT_MS: value }))
      .toThrow(new TypeError(`MCP_MOUNTS_WAIT_MS must be a non-negative integer of milliseconds, got "${value}".`));
  });
});
