/**
 * MCP_API_KEYS as written by an operator (docs/api-keys.md): one key a line, by its hash; a malformed line stops the
 * start-up with a TypeError naming the variable and the line, and nothing in the message is a secret.
 */

import { describe, expect, test } from 'vitest';
import { readApiKeys } from '../../lib/auth/api-keys.js';
import { readAuthConfig } from '../../lib/auth/config.js';
import { keyLine, mintTestKey } from '../support/api-keys.js';

const KEY = mintTestKey();
const HASH = keyLine('x', KEY).split('=')[1]!;

describe('MCP_API_KEYS', () => {
  test('unset or empty: no keys', () => {
    expect(readApiKeys({})).toBeUndefined();
    expect(readApiKeys({ MCP_API_KEYS: '  ' })).toBeUndefined();
  });

  test('each line: a name, its sha256, and optionally scopes (comma-separated) and a rate, in any order', () => {
    const keys = readApiKeys({ MCP_API_KEYS: `ci sha256=${HASH} scopes=agents:chat,docs:read rate=60/1m\n\n# a comment\nbot rate=10/1s sha256=${'0'.repeat(64)}` })!;
    expect(keys.keys.map(({ name, scopes, rate }) => ({ name, scopes, rate: rate?.text }))).toEqual([
      { name: 'ci', scopes: ['agents:chat', 'docs:read'], rate: '60/1m' },
      { name: 'bot', scopes: [], rate: '10/1s' },
    ]);
    expect(keys.keys[0]!.digest.toString('hex')).toBe(HASH);
    expect([...keys.rates.keys()]).toEqual(['key:ci', 'key:bot']);
  });

  test('a key\'s own token budget (tokens=) is read by its principal\'s subject, beside its rate', () => {
    const keys = readApiKeys({ MCP_API_KEYS: `ci sha256=${HASH} rate=60/1m tokens=10000/1d\nbot sha256=${'1'.repeat(64)}` })!;
    expect([...keys.tokens]).toEqual([['key:ci', { limit: 10_000, windowMs: 86_400_000, text: '10000/1d' }]]);
    expect(keys.keys[1]!.tokens).toBeUndefined();
  });

  test('lines may also be separated by semicolons, for settings that hold one line', () => {
    expect(readApiKeys({ MCP_API_KEYS: `a sha256=${HASH}; b sha256=${'1'.repeat(64)}` })!.keys.map((k) => k.name)).toEqual(['a', 'b']);
  });

  test.each([
    ['a bare hash', HASH, 'line 1 is not "<name> sha256=<64 hex digits> [scopes=a,b] [rate=60/1m] [tokens=100000/1d]" (npm run key -- create prints one): sha256= must be'],
    ['no sha256', 'ci scopes=a', 'line 1 is not "<name> sha256=<64 hex digits> [scopes=a,b] [rate=60/1m] [tokens=100000/1d]" (npm run key -- create prints one): sha256= must be the key\'s SHA-256 in 64 lowercase hex digits.'],
    ['a short hash', `ci sha256=${HASH.slice(1)}`, 'sha256= must be the key\'s SHA-256'],
    ['an upper-case hash', `ci sha256=${HASH.toUpperCase()}`, 'sha256= must be the key\'s SHA-256'],
    ['the key itself in place of its hash', `ci sha256=${KEY}`, 'it holds a key itself; the line takes only the key\'s hash'],
    ['the key itself as the name', `${KEY} sha256=${HASH}`, 'it holds a key itself'],
    ['an unknown field', `ci sha256=${HASH} scope=a`, '"scope" is not a field (sha256, scopes, rate, tokens)'],
    ['a field twice', `ci sha256=${HASH} scopes=a scopes=b`, 'scopes is given twice'],
    ['a name with a slash', `c/i sha256=${HASH}`, 'the name "c/i" must be 1-64 letters'],
    ['a scope with a quote', `ci sha256=${HASH} scopes=a,"b"`, 'the scope ""b"" has a character a scope cannot hold'],
    ['a bad rate', `ci sha256=${HASH} rate=lots`, 'MCP_API_KEYS line 1 rate must look like 60/1m'],
    ['rate=off', `ci sha256=${HASH} rate=off`, 'rate= must be a rate such as 60/1m'],
    ['a bad token budget', `ci sha256=${HASH} tokens=many`, 'MCP_API_KEYS line 1 tokens must look like 100000/1d (tokens per window'],
    ['tokens=off', `ci sha256=${HASH} tokens=off`, 'tokens= must be a budget such as 100000/1d'],
    ['one name with two token budgets', `ci sha256=${HASH} tokens=10/1d\nci sha256=${'1'.repeat(64)} tokens=20/1d`, 'names "ci" again with other scopes, rate or tokens'],
    ['the same key on two lines', `a sha256=${HASH}\nb sha256=${HASH}`, 'MCP_API_KEYS line 2 repeats the key of "a": one key, one line.'],
    ['one name with two grants', `ci sha256=${HASH} scopes=a\nci sha256=${'1'.repeat(64)} scopes=b`, 'MCP_API_KEYS line 2 names "ci" again with other scopes, rate or tokens'],
    ['comments only', '# nothing yet', 'MCP_API_KEYS is set but holds no key line'],
  ])('%s is refused at start-up, naming the variable and the line', (_name, value, message) => {
    expect(() => readApiKeys({ MCP_API_KEYS: value })).toThrow(TypeError);
    expect(() => readApiKeys({ MCP_API_KEYS: value })).toThrow(message);
  });

  test('a key pasted in clear is never quoted in the message', () => {
    for (const value of [`ci sha256=${KEY}`, `${KEY} sha256=${HASH}`, `ci sha256=${HASH} ${KEY}`]) {
      expect(() => readApiKeys({ MCP_API_KEYS: value })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(KEY.slice(9, 20)) }));
    }
  });

  test('the line named is the line of the variable, blank lines and comments counted', () => {
    expect(() => readApiKeys({ MCP_API_KEYS: `# keys\n\nci sha256=${HASH}\nbad` })).toThrow(/^MCP_API_KEYS line 4 is not/);
  });

  test('AUTH_SCOPES, the scopes every entry needs by default, may be set with keys alone', () => {
    expect(() => readAuthConfig({ MCP_API_KEYS: `ci sha256=${HASH}`, AUTH_SCOPES: 'agents:chat' })).not.toThrow();
    expect(() => readAuthConfig({ AUTH_SCOPES: 'agents:chat' }))
      .toThrow(new TypeError('AUTH_SCOPES is set but neither AUTH_ISSUER nor MCP_API_KEYS is; set one of them to turn auth on.'));
  });
});
