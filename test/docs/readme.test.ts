/**
 * The documentation tells the truth a reader can check by typing it. Every shell command in README.md and
 * docs/*.md is exercised: this file runs the cheap ones for real (`npm start` with the settings a command gives,
 * the smoke run and the curl against it, the development authorization server), and for the others names where
 * they run and checks that file holds the command. A command nobody runs fails here, as does an entry of the
 * table below that no document uses any more. Also held here: the configuration table (docs/configuration.md) names every variable the
 * code reads (and nothing else), the Deploy with Vercel button asks for variables that exist, and every link
 * between the documents lands on a file and a heading that exist.
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { extractCommands, shellWords, splitAssignments, type DocCommand } from './shell.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const COMMANDS: DocCommand[] = DOCS.flatMap((file) => extractCommands(file, read(file)));

/** Where a documented command is exercised. */
type Exercise =
  | { run: (command: DocCommand) => Promise<void> }
  | { in: string; contains: string }
  | { external: string };

const children: ChildProcess[] = [];
afterAll(() => {
  // Each command runs in its own process group (npm starts tsx, which starts node): end the whole group.
  for (const child of children) if (child.exitCode === null) try { process.kill(-child.pid!); } catch { /* gone */ }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `argv` as the shell would, with the command's own variables, and waits for `ready` on stdout. */
function start(argv: string[], env: Record<string, string>, ready: RegExp): Promise<{ match: RegExpExecArray; output: () => string }> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) resolve({ match, output: () => output });
    });
    child.stderr!.on('data', (chunk) => { output += chunk; });
    child.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/** What the documents' own examples point at (localhost:3000, the dev authorization server on :9000) here. */
const hosts = new Map<string, string>();
const localize = (text: string) => [...hosts].reduce((t, [from, to]) => t.split(from).join(to), text);

async function defaultServer(): Promise<string> {
  if (!hosts.has('http://localhost:3000')) {
    const { match } = await start(['npm', 'start'], { PORT: String(await freePort()) }, /agent-mcp ready: (http:\/\/\S+)\/mcp /);
    hosts.set('http://localhost:3000', match[1]!);
  }
  return hosts.get('http://localhost:3000')!;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const rpc = (url: string, method: string) => fetch(url, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }) });

/** `[NAME=value …] npm start`: started with those variables on a free port, then asked what it serves. */
async function runNpmStart({ text }: DocCommand): Promise<void> {
  const { env, argv } = splitAssignments(shellWords(localize(text)));
  expect(argv).toEqual(['npm', 'start']);
  const port = String(await freePort());
  const { match, output } = await start(argv, { ...env, PORT: port }, /agent-mcp ready: (http:\/\/\S+)\/mcp /);
  const origin = match[1]!;
  expect(new URL(origin).port).toBe(port); // PORT, given or not, is the port it serves
  // The lines after "ready" say which agent serves.
  if (env.AGENT_URL) await expect.poll(output).toContain(env.AGENT_URL);
  const response = await rpc(`${origin}/mcp`, 'tools/list');
  if (env.AUTH_ISSUER) {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${origin}/mcp/oauth-protected-resource"`);
    return;
  }
  if (env.MCP_MOUNTS) return; // its mounts are on the internet; that it starts with them is the check
  expect(response.status).toBe(200);
  expect(JSON.stringify(await response.json())).toContain('chat_with_agent');
}

/** `curl …` against the local server, sent with fetch: the same method, URL, headers and body. */
async function runCurl({ text }: DocCommand): Promise<void> {
  await defaultServer();
  const words = shellWords(localize(text));
  expect(words[0]).toBe('curl');
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-s') continue;
    else if (word === '-H') { const [name, ...value] = words[++i]!.split(':'); headers[name!.trim()] = value.join(':').trim(); }
    else if (word === '-d') body = words[++i];
    else if (!word.startsWith('-')) url = word;
    else throw new Error(`the doc test does not know curl's ${word}: teach runCurl, or drop it from the document`);
  }
  const response = await fetch(url!, { method: body === undefined ? 'GET' : 'POST', headers, body });
  expect(response.status).toBe(200);
  expect((await response.json()).result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
}

async function runSmoke({ text }: DocCommand): Promise<void> {
  await defaultServer();
  const words = shellWords(localize(text));
  const run = spawnSync(words[0]!, words.slice(1), { cwd: ROOT, encoding: 'utf8' });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('smoke: passed');
}

async function runDevOAuthServer({ text }: DocCommand): Promise<void> {
  const { match } = await start(shellWords(text), { PORT: String(await freePort()) }, /authorization server on (http:\/\/\S+)/);
  const issuer = match[1]!;
  hosts.set('http://localhost:9000', issuer);
  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  expect(metadata).toMatchObject({ issuer, registration_endpoint: expect.any(String) });
}

/** `AGENTS='[…]'` on its own: the example must be a configuration the server accepts, with both agents. */
async function runAgentsExample({ text }: DocCommand): Promise<void> {
  const { env, argv } = splitAssignments(shellWords(text));
  expect(argv).toEqual([]);
  const keys = Object.fromEntries([...env.AGENTS!.matchAll(/"apiKeyEnv":"(\w+)"/g)].map(([, name]) => [name!, 'example-key']));
  const { match } = await start(['npm', 'start'], { ...env, ...keys, PORT: String(await freePort()) }, /agent-mcp ready: (http:\/\/\S+)\/mcp /);
  const response = await rpc(`${match[1]}/mcp`, 'resources/list');
  const uris = (await response.json()).result.resources.map((r: { uri: string }) => r.uri);
  for (const { id } of JSON.parse(env.AGENTS!)) expect(uris).toContain(`agent://${id}`);
}

/** `npm run key -- create …`: it prints a key and its line, and `npm start` with that line takes that key and only it. */
async function runKeyCreate({ text }: DocCommand): Promise<void> {
  const words = shellWords(text);
  const run = spawnSync(words[0]!, words.slice(1), { cwd: ROOT, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const key = /^ {2}(agentmcp_\S+)$/m.exec(run.stdout)?.[1];
  const line = /^ {2}(\S+ sha256=.*)$/m.exec(run.stdout)?.[1];
  expect(key && line, run.stdout).toBeTruthy();
  const { match } = await start(['npm', 'start'], { MCP_API_KEYS: line!, PORT: String(await freePort()) }, /agent-mcp ready: (http:\/\/\S+)\/mcp /);
  const url = `${match[1]}/mcp`;
  expect((await rpc(url, 'tools/list')).status).toBe(401);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const response = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body });
  expect(response.status).toBe(200);
}

/** `npm run authz-key`: prints the line to configure, a key the built-in authorization server accepts. */
async function runAuthzKey({ text }: DocCommand): Promise<void> {
  const words = shellWords(text);
  const run = spawnSync(words[0]!, words.slice(1), { cwd: ROOT, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const line = run.stdout.trim().split('\n').at(-1)!;
  const { env } = splitAssignments(shellWords(line));
  const { readSigningKey } = await import('../../lib/auth/signing-key.js');
  expect(readSigningKey(env.AUTH_SERVER_KEY!).publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
}

const EXERCISES: Array<[RegExp, Exercise]> = [
  [/^npm install$/, { in: '.ci/run', contains: 'npm install' }],
  [/^npm test$/, { in: '.ci/run', contains: 'npm test' }],
  [/^npm run test:quick$/, { in: 'package.json', contains: '"test:quick": "vitest run --config vitest.quick.config.ts"' }],
  [/^npm run build$/, { in: 'package.json', contains: '&& npm run build &&' }],
  [/^npm run build -- --prod$/, { in: 'test/artifact/deploy-commands.test.ts', contains: "['scripts/build.mjs', '--prod']" }],
  [/^([A-Z_]+=('[^']*'|\S+) )*npm start$/, { run: runNpmStart }],
  [/^AGENTS='/, { run: runAgentsExample }],
  [/^curl /, { run: runCurl }],
  [/^npm run smoke -- http:\/\/localhost:3000\/mcp$/, { run: runSmoke }],
  [/^npm run smoke -- https:\/\/<preview>\S* --header "x-vercel-protection-bypass: <secret>"$/,
    { in: 'test/scripts/local-server.test.ts', contains: "'scripts/smoke.ts', `${origin}/mcp`, '--header'" }],
  [/^npx tsx test\/support\/dev-oauth-server\.ts$/, { run: runDevOAuthServer }],
  [/^npm run dev:signin$/, { in: 'test/scripts/dev-signin.test.ts', contains: "['--import', 'tsx', 'scripts/dev-signin.ts']" }],
  [/^npm run key -- create --name \S+( --scopes \S+)?$/, { run: runKeyCreate }],
  [/^npm run authz-key$/, { run: runAuthzKey }],
  [/^npx vercel login$/, { external: 'signs in at vercel.com, which tests cannot reach; deploy-commands.test.ts deploys with a token against a stand-in of the Vercel API' }],
  [/^npx vercel deploy --prebuilt$/, { in: 'test/artifact/deploy-commands.test.ts', contains: "deploy(dir, ['--prebuilt'])" }],
  [/^npx vercel deploy --prebuilt --prod$/, { in: 'test/artifact/deploy-commands.test.ts', contains: "deploy(dir, ['--prebuilt', '--prod'])" }],
  [/^claude mcp add /, { external: 'Claude Code is not installed here; the landing page test checks the same command for a deployment' }],
  [/^npx -y --loglevel=error -p node@22 -p @modelcontextprotocol\/inspector@latest mcp-inspector$/,
    { in: 'test/clients/inspector-npx.test.ts', contains: "run(['--cli', `${server.url}/mcp`, '--method', 'tools/list'])" }],
  [/^npx -y --loglevel=error -p node@22 -p @modelcontextprotocol\/inspector@latest mcp-inspector --cli http:\/\/localhost:3000\/mcp --method tools\/list$/,
    { in: 'test/clients/inspector-npx.test.ts', contains: "run(['--cli', `${server.url}/mcp`, '--method', 'tools/list'])" }],
];

const exerciseOf = (command: DocCommand) => EXERCISES.filter(([pattern]) => pattern.test(command.text));

describe('the README', () => {
  test('is one screen per task: at most 250 lines, with the sections a user needs first', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading);
    expect(sections).toEqual(expect.arrayContaining(['Quick start', 'Connect a client', 'Point it at your agent', 'Add your own tool',
      'Make it private', 'Deploy', 'Configuration', 'Troubleshooting']));
  });
});

describe('every shell command in README.md and docs/ is exercised', () => {
  test('the documents have commands to check', () => {
    expect(COMMANDS.filter((c) => c.file === 'README.md').length).toBeGreaterThan(5);
  });

  test('each command is matched by exactly one entry of the table', () => {
    const unmatched = COMMANDS.filter((c) => exerciseOf(c).length !== 1).map((c) => `${c.file}: ${c.text}`);
    expect(unmatched, 'add a test for these commands (and an entry here), or leave them out of the documents').toEqual([]);
  });

  test('each entry of the table is still used by a document', () => {
    const unused = EXERCISES.filter(([pattern]) => !COMMANDS.some((c) => pattern.test(c.text))).map(([pattern]) => String(pattern));
    expect(unused).toEqual([]);
  });

  test('a command exercised elsewhere is really in that file', () => {
    for (const [, exercise] of EXERCISES) {
      if ('in' in exercise) expect(read(exercise.in), exercise.in).toContain(exercise.contains);
    }
  });

  const runnable = COMMANDS.filter((c) => exerciseOf(c).length === 1 && 'run' in exerciseOf(c)[0]![1]);
  test.each(runnable.map((c) => [`${c.file}: ${c.text.length > 90 ? `${c.text.slice(0, 90)}…` : c.text}`, c] as const))(
    'runs %s',
    async (_name, command) => {
      await (exerciseOf(command)[0]![1] as { run: (c: DocCommand) => Promise<void> }).run(command);
    },
    60_000,
  );
});

/** docs/configuration.md: the table of every variable and the line about what Vercel sets. */
const configuration = () => read('docs/configuration.md');
/** Variables the platform sets, which docs/configuration.md names in a line of their own. */
const PLATFORM = new Set(['VERCEL', 'VERCEL_URL', 'VERCEL_BRANCH_URL',
  // Read by Node itself, named where the table says what they do to upstream requests.
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS']);

const codeFiles = () => ['api', 'lib'].flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true }).map((f) => `${dir}/${f}`))
  .filter((f) => f.endsWith('.ts')).concat('scripts/serve.ts');

function variablesReadByCode(): Set<string> {
  const names = new Set<string>();
  for (const file of codeFiles()) {
    for (const [, name] of read(file).matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)) names.add(name!);
    // lib/config.ts integerEnv(env, 'NAME', …) reads a variable by name too.
    for (const [, name] of read(file).matchAll(/\bintegerEnv\(\w+, ['"]([A-Z][A-Z0-9_]+)['"]/g)) names.add(name!);
  }
  return names;
}

describe('the configuration table', () => {
  test('names every variable the code reads', () => {
    const table = configuration();
    const missing = [...variablesReadByCode()].filter((name) => !table.includes(`\`${name}\``));
    expect(missing, 'document these in docs/configuration.md').toEqual([]);
  });

  test('names no variable the code does not read', () => {
    // Some modules read variables through a table of names ('UPSTASH_REDIS_REST_TOKEN'): a quoted name counts.
    const known = new Set([...variablesReadByCode(), ...codeFiles().flatMap((file) => [...read(file).matchAll(/['"`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)['"`]/g)].map(([, name]) => name!))]);
    const documented = [...configuration().matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+|PORT|AGENTS|VERCEL)`/g)].map(([, name]) => name!);
    expect(documented.filter((name) => !known.has(name) && !PLATFORM.has(name))).toEqual([]);
  });
});

describe('the Deploy with Vercel button', () => {
  const href = /\[!\[Deploy with Vercel\]\(https:\/\/vercel\.com\/button\)\]\((\S+)\)/.exec(read('README.md'))?.[1];
  const url = new URL(href ?? 'missing:');
  const repository = /id="repo-link" href="([^"]+)"/.exec(read('public/index.html'))?.[1];

  test('clones the repository the landing page links', () => {
    expect(`${url.origin}${url.pathname}`).toBe('https://vercel.com/new/clone');
    expect(url.searchParams.get('repository-url')).toBe(repository);
  });

  test('asks for the agent and the state secret, all documented variables, with a description and a link to the table', () => {
    const env = url.searchParams.get('env')!.split(',');
    expect(env).toEqual(expect.arrayContaining(['AGENT_URL', 'AGENT_API_KEY', 'MCP_STATE_SECRET']));
    for (const name of env) expect(configuration()).toContain(`\`${name}\``);
    expect(url.searchParams.get('envDescription')).toMatch(/\w{3,}/);
    expect(url.searchParams.get('envLink')).toBe(`${repository}#configuration`);
  });

  test('pre-fills only values that are not secrets, and only for variables it asks for', () => {
    const defaults = JSON.parse(url.searchParams.get('envDefaults') ?? '{}');
    const env = url.searchParams.get('env')!.split(',');
    for (const name of Object.keys(defaults)) {
      expect(env).toContain(name);
      expect(name).not.toMatch(/KEY|SECRET|TOKEN/);
    }
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

describe('links between the documents', () => {
  test.each(DOCS)('every relative link in %s lands on a file and a heading that exist', (file) => {
    const base = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
    for (const [, target] of read(file).matchAll(/\]\((?!https?:|mailto:)([^)\s]+)\)/g)) {
      const [path, anchor] = target!.split('#');
      const resolved = path ? join(base, path) : file;
      expect(existsSync(join(ROOT, resolved)), `${file} → ${target}`).toBe(true);
      if (anchor) {
        const headings = [...read(resolved).matchAll(/^#{1,6} (.+)$/gm)].map(([, h]) => slug(h!));
        expect(headings, `${file} → ${target}`).toContain(anchor);
      }
    }
  });
});
