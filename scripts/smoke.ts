/**
 * `npm run smoke -- <url> [--header "Name: Value"]...`: checks a deployed (or local) MCP URL with the official
 * client: era negotiation (server/discover, falling back to initialize), tools/list and one tools/call.
 * For a protected Vercel preview pass `--header "x-vercel-protection-bypass: <secret>"`.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

function parseArgs(argv: string[]) {
  const headers: Record<string, string> = {};
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
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
  if (!url) throw new TypeError('Usage: npm run smoke -- <mcp-url> [--header "Name: Value"]...');
  return { url: new URL(url), headers };
}

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const value = await run();
    console.log(`  ✓ ${label} (${(performance.now() - started).toFixed(0)} ms)`);
    return value;
  } catch (error) {
    console.log(`  ✗ ${label}: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
}

const { url, headers } = parseArgs(process.argv.slice(2));
console.log(`smoke test of ${url.href}`);
const client = new Client({ name: 'agent-mcp-smoke', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
let ok = false;
try {
  await timed('connect', () => client.connect(transport));
  console.log(`    era ${client.getProtocolEra()}, version ${client.getNegotiatedProtocolVersion()}, server ${JSON.stringify(client.getServerVersion())}`);
  const { tools } = await timed('tools/list', () => client.listTools());
  console.log(`    ${tools.length} tool(s): ${tools.map((t) => t.name).join(', ')}`);
  const chat = tools.find((t) => t.name === 'chat_with_agent');
  const target = chat ?? tools.find((t) => !(t.inputSchema as { required?: string[] }).required?.length);
  if (target) {
    const args = chat ? { message: 'Hello from the agent-mcp smoke test.' } : {};
    const result = await timed(`tools/call ${target.name}`, () => client.callTool({ name: target.name, arguments: args }));
    const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '';
    console.log(`    ${result.isError ? 'tool error: ' : ''}${text.slice(0, 160)}`);
  } else {
    console.log('    no tool without required arguments to call; skipped tools/call');
  }
  ok = true;
} catch {
  ok = false;
} finally {
  await client.close().catch(() => undefined);
}
console.log(ok ? 'smoke: passed' : 'smoke: FAILED');
process.exit(ok ? 0 : 1);
