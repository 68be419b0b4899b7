/**
 * What the benchmarks compare, and how each is built. Every target is a function in a `vercel build` output:
 * agent-mcp (this repository) and two peer projects (bench/peers: the same one tool on mcp-handler and on the
 * SDK's createMcpHandler). Each project is built as `npm run build` builds ours: `vercel build`, then every
 * function bundled in place. Both stages are copied to .vercel/bench/{unbundled,bundled}: what @vercel/node
 * emits is also what a remote build deploys, and the copies stay put while other work rebuilds .vercel/output.
 */

import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFunctions } from '../scripts/bundle-functions.mjs';
import { vercelBuild } from '../scripts/build.mjs';
import { lambdaNodeFlags } from '../scripts/code-cache.mjs';
import { builtFunctionPath } from '../scripts/load-built.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEERS = join(ROOT, 'bench/peers');

const output = (project, bundled) => join(project, '.vercel/bench', bundled ? 'bundled' : 'unbundled');

/** Each target: a label, and where its handler module is once built. */
export const TARGETS = {
  ours: { label: 'agent-mcp (npm run build)', path: () => builtFunctionPath('api/mcp', output(ROOT, true)) },
  // Node started as on Vercel (AWS Lambda's bootstrap, 2 GB): its code cache is the `-expose-gc` one (Node 24; on
  // Node 20 the heap sizes make V8 refuse every cache, and the row shows the function compiling at start).
  oursLambda: { label: 'agent-mcp, Node started as AWS Lambda starts it', path: () => builtFunctionPath('api/mcp', output(ROOT, true)), nodeFlags: lambdaNodeFlags() },
  // A 2026-07-28 client may call a tool first on a new instance: the chat call's own cold path (the demo agent).
  oursCall: { label: 'agent-mcp, answering a tools/call (demo agent) first', path: () => builtFunctionPath('api/mcp', output(ROOT, true)), first: ['call'] },
  // What any function costs a cold start on this machine: one module, one Request read, one fixed Response.
  floor: { label: 'Web-standard fetch, fixed reply (floor)', path: () => join(ROOT, 'bench/fixed-reply.mjs') },
  oursUnbundled: { label: 'agent-mcp, unbundled (@vercel/node alone)', path: () => builtFunctionPath('api/mcp', output(ROOT, false)) },
  mcpHandler: { label: 'mcp-handler 2.4.0 (vercel build)', path: () => builtFunctionPath('api/mcp-handler', output(PEERS, false)) },
  mcpHandlerBundled: { label: 'mcp-handler 2.4.0, bundled like ours', path: () => builtFunctionPath('api/mcp-handler', output(PEERS, true)) },
  sdkServer: { label: '@modelcontextprotocol/server 2.4.0 (vercel build)', path: () => builtFunctionPath('api/sdk-server', output(PEERS, false)) },
  sdkServerBundled: { label: '@modelcontextprotocol/server 2.4.0, bundled like ours', path: () => builtFunctionPath('api/sdk-server', output(PEERS, true)) },
};

/** A peer's function (bench/peers/api/<name>) as `vercel build` emits it; the streaming row's peer is one. */
export const peerFunctionPath = (name) => builtFunctionPath(`api/${name}`, output(PEERS, false));

function snapshot(project, bundled) {
  rmSync(output(project, bundled), { recursive: true, force: true });
  cpSync(join(project, '.vercel/output/functions'), join(output(project, bundled), 'functions'), { recursive: true });
}

async function build(project) {
  vercelBuild(project);
  snapshot(project, false);
  await bundleFunctions(project);
  snapshot(project, true);
}

export async function buildTargets() {
  await build(ROOT);
  await build(PEERS);
}
