/**
 * The first step of `npm run build` (and of Vercel's remote build, scripts/vercel-build.mjs): what the deployment
 * defines in code (tools/index.ts: tools, resources, prompts, skills, in-process agents) built as start-up builds it,
 * so that a definition `npm start` refuses fails the build with the same one line instead of shipping a function
 * that answers every request "server misconfigured".
 *
 * The build cannot see the deployment's environment, so the code is built on the defaults, with stand-ins only for
 * what the code itself asks of the environment: a paid (or priced) tool, resource or prompt needs X402_PAY_TO, an
 * in-process agent that names `agent:<id>` of no agent in the code names one AGENTS defines. Those settings stay
 * start-up's to check.
 *
 * `tsx scripts/check-code.ts`: exit 0 with one line saying what was checked, or exit 1 with start-up's line.
 */

import { pathToFileURL } from 'node:url';
import { createDefaultApp } from '../lib/app.js';
import { namedAgents } from '../lib/agent/tool-patterns.js';
import type { Additions } from '../lib/define/index.js';
import { describeStartupError } from '../lib/http/configured.js';
import additions from '../tools/index.js';

type Env = Record<string, string | undefined>;

/** A well-formed address that receives nothing: the build only needs paid tools to be built as paid. */
const STAND_IN_PAY_TO = `0x${'0'.repeat(40)}`;
/** A URL of a reserved name (RFC 2606): an agent the build stands in for is never called. */
const STAND_IN_AGENT_URL = 'https://agent.invalid/chat';

/** The environment the code is built in: empty, but for the stand-ins the code asks for. */
export function codeCheckEnv(code: Additions): Env {
  const env: Env = {};
  const entries = [...code.tools ?? [], ...code.resources ?? [], ...code.resourceTemplates ?? [], ...code.prompts ?? []];
  if (entries.some((entry) => entry.paid || entry.price !== undefined)) env.X402_PAY_TO = STAND_IN_PAY_TO;
  const own = new Set((code.agents ?? []).map((agent) => agent.id));
  // Only well-formed patterns: a malformed one is the code's error, which start-up's own check names.
  const patterns = (code.agents ?? []).flatMap((agent) => (Array.isArray(agent.tools) ? agent.tools : []))
    .filter((pattern): pattern is string => typeof pattern === 'string');
  const elsewhere = [...new Set(namedAgents(patterns))].filter((id) => !own.has(id));
  if (elsewhere.length) env.AGENTS = JSON.stringify(elsewhere.map((id) => ({ id, format: 'platform', url: STAND_IN_AGENT_URL })));
  return env;
}

/** Builds `code` as start-up would; returns the line to print and whether the build may go on. */
export function checkCode(code: Additions): { ok: boolean; line: string } {
  try {
    createDefaultApp(codeCheckEnv(code), code);
  } catch (error) {
    return { ok: false, line: `agent-mcp: ${describeStartupError(error)}` };
  }
  const counts = (['tools', 'resources', 'resourceTemplates', 'prompts', 'agents', 'skills'] as const)
    .filter((kind) => code[kind]?.length).map((kind) => `${code[kind]!.length} ${kind}`).join(', ') || 'nothing added';
  return {
    ok: true,
    line: `build: tools/index.ts builds as start-up builds it (${counts}); the settings of the deployment's environment `
      + 'are checked when its functions start, since the build cannot see them',
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { ok, line } = checkCode(additions);
  (ok ? console.log : console.error)(line);
  // The memory store's timers would keep the process alive; there is nothing more to do.
  process.exit(ok ? 0 : 1);
}
