/** `npm start`: the deployment's functions on http://localhost:PORT with the embedded defaults. */

import { readConfig } from '../lib/config.js';
import { startLocalServer } from './local-server.js';

const port = Number(process.env.PORT ?? 3000);
const config = readConfig();
const { url } = await startLocalServer({ port });

console.log(`agent-mcp listening on ${url}
  MCP endpoint   ${url}/mcp   (also ${url}/api/mcp)
  landing page   ${url}/
  store          ${process.env.UPSTASH_REDIS_REST_URL || process.env.KV_REST_API_URL ? 'Upstash (shared)' : 'memory (one process; set UPSTASH_REDIS_REST_URL to share state across instances)'}
  agent          ${process.env.AGENT_URL ? process.env.AGENT_URL : 'in-process demo agent (set AGENT_URL for yours)'}
  auth           ${process.env.AUTH_ISSUER ? `OAuth bearer tokens from ${process.env.AUTH_ISSUER}` : 'none (set AUTH_ISSUER to require OAuth bearer tokens)'}
  origins        loopback${config.allowedOrigins.length ? ` + ${config.allowedOrigins.join(', ')}` : ''}`);
