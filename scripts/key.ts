/**
 * `npm run key -- create --name ci --scopes agents:chat [--rate 60/1m] [--tokens 100000/1d]`: mints an API key (docs/api-keys.md),
 * prints it once, and prints the line that configures it in MCP_API_KEYS. The key itself is kept nowhere: the
 * line holds only its SHA-256, so a lost key is replaced, not recovered. A bad argument exits 1 naming it;
 * `--help` prints the usage and exits 0.
 */

import { parseArgs } from 'node:util';
import { API_KEY_PREFIX, mintApiKey } from '../lib/auth/api-key.js';
import { apiKeyLine, KEY_NAME, KEY_NAME_RULE, KEY_SCOPE, readApiKeys } from '../lib/auth/api-keys.js';
import { parseRate } from '../lib/limits/rate.js';

const USAGE = 'usage: npm run key -- create --name <name> [--scopes a,b] [--rate 60/1m] [--tokens 100000/1d]';
/** What `--help` prints: the usage and what each option means (docs/api-keys.md says more). */
const HELP = `${USAGE}

Mints an API key, prints it once, and prints the line that configures it in MCP_API_KEYS.
  --name <name>    the key's principal is key:<name> (${KEY_NAME_RULE})
  --scopes a,b     the scopes the key grants (default: none)
  --rate 60/1m     a rate limit of the key's own, in place of RATE_LIMIT_PRINCIPAL
  --tokens 100000/1d  a token budget of the key's own, in place of TOKEN_BUDGET_CALLER
See docs/api-keys.md.`;

function fail(message: string): never {
  console.error(`key: ${message}\n${USAGE}`);
  process.exit(1);
}

function readArguments() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { name: { type: 'string' }, scopes: { type: 'string' }, rate: { type: 'string' }, tokens: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    fail((error as Error).message);
  }
}

const { positionals, values } = readArguments();
if (values.help || positionals[0] === 'help') {
  console.log(HELP);
  process.exit(0);
}
if (positionals.length !== 1 || positionals[0] !== 'create') fail(`the command is "create", got "${positionals.join(' ')}".`);
const name = values.name ?? fail('--name is required: the name of the key\'s principal (key:<name>).');
if (!KEY_NAME.test(name)) fail(`--name must be ${KEY_NAME_RULE}, got "${name}".`);
if (name.includes(API_KEY_PREFIX)) fail(`--name must not hold "${API_KEY_PREFIX}": the server refuses a line that looks like it holds a key.`);
const scopes = (values.scopes ?? '').split(/[\s,]+/).filter(Boolean);
const badScope = scopes.find((scope) => !KEY_SCOPE.test(scope));
if (badScope !== undefined) fail(`--scopes: "${badScope}" is not a scope (printable characters but space, ", \\, "," and ";").`);
let rate: string | undefined;
let tokens: string | undefined;
try {
  rate = parseRate('--rate', values.rate)?.text;
  tokens = parseRate('--tokens', values.tokens, 'tokens')?.text;
} catch (error) {
  fail((error as Error).message);
}

const key = mintApiKey();
const line = apiKeyLine(name, key, scopes, rate, tokens);
readApiKeys({ MCP_API_KEYS: line }); // the server reads what this prints; a mismatch would throw here, not at deploy

console.log(`API key "${name}" (shown once; keep it where the client reads it):

  ${key}

Add this line to MCP_API_KEYS (one line per key; remove the line to revoke the key):

  ${line}

Clients send it as the header  Authorization: Bearer ${key}`);
