/**
 * One agent-mcp server process for multi-instance tests (test-only): what a deployment runs, configured by
 * its environment, on a free port. `INSTANCE_APP=default` serves `createDefaultApp(process.env)` (store,
 * limits, agents and payments exactly as deployed) and logs its start-up line as a deployed function does with
 * MCP_LOG=debug (every setting); `INSTANCE_APP=conformance` serves the conformance fixture pack on the store the
 * environment selects; `INSTANCE_APP=metered` serves the default app with the in-process agent of metered-agent.ts (its
 * model requests take METERED_DELAY_MS each), which reports usage. Prints "listening on <mcp url>".
 * Run: PORT=0 INSTANCE_APP=default node --import tsx test/support/instance-server.ts
 */

import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { startupLogLine } from '../../lib/observe/startup.js';
import { selectStore } from '../../lib/store/select.js';
import { readUpstashConfig } from '../../lib/store/upstash-config.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { createMeteredAgent } from './metered-agent.js';

function deployedHandler() {
  const metered = process.env.INSTANCE_APP === 'metered'
    ? { agents: [createMeteredAgent('metered', { delayMs: Number(process.env.METERED_DELAY_MS ?? 0) }).definition] }
    : undefined;
  const app = metered ? createDefaultApp(process.env, metered) : createDefaultApp(process.env);
  console.log(startupLogLine(app.startup!, true));
  return createMcpHandler(app);
}

const handler = process.env.INSTANCE_APP === 'conformance'
  ? createConformanceHandler({ store: selectStore(readUpstashConfig(process.env), process.env).store, stateSecret: process.env.MCP_STATE_SECRET })
  : deployedHandler();
const { url } = await startLocalServer({ port: Number(process.env.PORT ?? 0), functions: { '/api/mcp': handler } });
console.log(`listening on ${url}/mcp`);
