/**
 * `npm run smoke -- <url> [--header "Name: Value"]...`: checks a deployed (or local) MCP URL end to end:
 * the discovery documents; when the server asks for OAuth, the 401 challenge, the metadata it names and the
 * authorization server's; then, with the official client, era negotiation (server/discover, falling back to
 * initialize), tools/list and one tools/call, whose tool error fails the run.
 * Every request carries the headers given. For a protected Vercel preview
 * pass `--header "x-vercel-protection-bypass: <secret>"`; for a server with API keys or OAuth on,
 * `--header "Authorization: Bearer <key or token>"` to reach the tools. A 401 is told apart: Vercel Deployment
 * Protection's, or the server's own for a missing or refused key (its mcp.json says `api-key`), or its OAuth challenge.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SmokeFailure, checkAccess, checkDiscovery, type Step } from './smoke-discovery.js';

const USAGE = `Usage: npm run smoke -- <mcp-url> [--header "Name: Value"]...
  <mcp-url>   the MCP endpoint, e.g. https://your-app.vercel.app/mcp or http://localhost:3000/mcp
  --header    sent on every request: "x-vercel-protection-bypass: <secret>" for a protected preview,
              "Authorization: Bearer <key or token>" for a server with API keys or OAuth on`;

function parseArgs(argv: string[]) {
  const headers: Record<string, string> = {};
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h' || arg === 'help') {
      console.log(USAGE);
      process.exit(0);
    }
    if (arg === '--header' || arg === '-H') {
      const [name, ...rest] = (argv[++i] ?? '').split(':');
      if (!name || rest.length === 0) throw new TypeError(`--header must look like "Name: Value", got "${argv[i]}"`);
      headers[name.trim()] = rest.join(':').trim();
    } else if (!url) {
      url = arg;
    } else {
      throw new TypeError(`Unexpected argument: ${arg}`);
    }
  }
  if (!url) throw new TypeError('no MCP URL given.');
  if (!URL.canParse(url)) throw new TypeError(`"${url}" is not a URL; give the MCP endpoint's, e.g. http://localhost:3000/mcp.`);
  return { url: new URL(url), headers };
}

/** The arguments, or the reason they are wrong and the usage, printed without a stack trace (exit 2). */
function argsOrExit(argv: string[]) {
  try {
    return parseArgs(argv);
  } catch (error) {
    console.error(`smoke: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
}

/** Errors a step already printed. */
const printed = new WeakSet<object>();

const step: Step = async (label, run) => {
  const started = performance.now();
  try {
    const value = await run();
    console.log(`  ✓ ${label} (${(performance.now() - started).toFixed(0)} ms)`);
    return value;
  } catch (error) {
    console.log(`  ✗ ${label}: ${error instanceof Error ? error.message : String(error)}`);
    if (typeof error === 'object' && error !== null) printed.add(error);
    throw error;
  }
};

const hasToken = (headers: Record<string, string>) => Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');

async function checkTools(url: URL, headers: Record<string, string>): Promise<void> {
  const client = new Client({ name: 'agent-mcp-smoke', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  try {
    await step('connect', () => client.connect(transport));
    console.log(`    era ${client.getProtocolEra()}, version ${client.getNegotiatedProtocolVersion()}, server ${JSON.stringify(client.getServerVersion())}`);
    const { tools } = await step('tools/list', () => client.listTools());
    console.log(`    ${tools.length} tool(s): ${tools.map((t) => t.name).join(', ')}`);
    const chat = tools.find((t) => t.name === 'chat_with_agent');
    const target = chat ?? tools.find((t) => !(t.inputSchema as { required?: string[] }).required?.length);
    if (!target) {
      console.log('    no tool without required arguments to call; skipped tools/call');
      return;
    }
    const args = chat ? { message: 'Hello from the agent-mcp smoke test.' } : {};
    await step(`tools/call ${target.name}`, async () => {
      const result = await client.callTool({ name: target.name, arguments: args });
      const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '';
      if (result.isError) throw new SmokeFailure(`tool error: ${text.slice(0, 300)}`);
      console.log(`    ${text.slice(0, 160)}`);
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

const { url, headers } = argsOrExit(process.argv.slice(2));
console.log(`smoke test of ${url.href}`);
let ok = false;
try {
  const authType = await checkDiscovery(url, headers, step);
  const access = await checkAccess(url, headers, step, authType);
  if (access.kind === 'open') console.log('    auth: none (the endpoint answers without a token)');
  if (access.kind === 'oauth' && !hasToken(headers)) {
    console.log('    OAuth is on: pass --header "Authorization: Bearer <token>" to also list and call the tools');
  } else {
    await checkTools(url, headers);
  }
  ok = true;
} catch (error) {
  // A failure inside a step was printed there; one outside any step (e.g. a refused connection) is printed here.
  if (typeof error !== 'object' || error === null || !printed.has(error)) {
    console.log(`  ✗ ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(ok ? 'smoke: passed' : 'smoke: FAILED');
process.exit(ok ? 0 : 1);
