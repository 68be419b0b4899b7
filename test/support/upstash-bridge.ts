/**
 * Test support: a small HTTP bridge speaking the serverless-redis-http protocol (the Upstash REST API as
 * hiett/serverless-redis-http implements it) in front of a real redis-server, so the real `@upstash/redis` and
 * `@upstash/ratelimit` run unmodified against it. Test-only; never deployed.
 *
 * Protocol (SRH `lib/srh/http/*.ex`): POST `/` with one command array → 200 `{result}` or 400 `{error}`;
 * POST `/pipeline` and `/multi-exec` with an array of commands → 200 `[{result}|{error}]`; a Bearer token;
 * with `Upstash-Encoding: base64` every string in a result is base64 (UTF-8 bytes).
 *
 * One deliberate rewrite: `@upstash/ratelimit` ≥ 2.1 starts its Lua scripts with
 * `#!lua flags=allow-key-locking`, an Upstash-only flag stock Redis rejects ("Unexpected flag in script
 * shebang"). The bridge drops that flag from EVAL scripts and answers EVALSHA of the original script's hash
 * with the rewritten script, so the script cache behaves as it does on Upstash (one EVALSHA per call once
 * the script is known).
 */

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connectResp, RespError, type RespValue } from './resp.js';

export interface BridgeRequest {
  path: string;
  /** Upper-cased command names the request carried. */
  commands: string[];
  /** Characters of the request body: what the store was sent. */
  bytes: number;
  /** When it arrived and when its reply went out (performance.now()), to tell serial round trips from parallel ones. */
  start: number;
  end?: number;
}

export interface UpstashBridge {
  url: string;
  token: string;
  /** What a deployment using this store sets, including the state secret a shared store requires. */
  env: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string; MCP_STATE_SECRET: string };
  /** Every HTTP request received (each is one round trip), in arrival order. */
  requests: BridgeRequest[];
  /** Holds every reply this long before sending it: a slow Redis. 0 answers at once. */
  setDelay(ms: number): void;
  /** Removes every key (FLUSHALL) and forgets the request log. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const UPSTASH_ONLY_FLAG = 'allow-key-locking';
const SHEBANG = /^#!lua(?: flags=([^\n]*))?\n/;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

function stripUpstashFlags(script: string): string {
  const match = SHEBANG.exec(script);
  if (!match?.[1]) return script;
  const flags = match[1].split(',').map((f) => f.trim()).filter((f) => f && f !== UPSTASH_ONLY_FLAG);
  return `#!lua${flags.length ? ` flags=${flags.join(',')}` : ''}\n${script.slice(match[0].length)}`;
}

function toBase64(value: RespValue): RespValue {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('base64');
  if (Array.isArray(value)) return value.map(toBase64);
  return value;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export async function startUpstashBridge(redisPort: number, token = `test-${crypto.randomUUID()}`): Promise<UpstashBridge> {
  const redis = await connectResp(redisPort);
  const aliases = new Map<string, string>();
  const requests: BridgeRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let delayMs = 0;

  function rewrite(command: unknown[]): string[] {
    const args = command.map((a) => (typeof a === 'string' ? a : typeof a === 'object' && a !== null ? JSON.stringify(a) : String(a)));
    const name = args[0]?.toUpperCase();
    if ((name === 'EVAL' || name === 'EVAL_RO') && args[1] !== undefined) {
      const stripped = stripUpstashFlags(args[1]);
      if (stripped !== args[1]) aliases.set(sha1(args[1]), sha1(stripped));
      args[1] = stripped;
    }
    if ((name === 'EVALSHA' || name === 'EVALSHA_RO') && args[1] !== undefined) {
      args[1] = aliases.get(args[1].toLowerCase()) ?? args[1];
    }
    return args;
  }

  const wait = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      resolve();
    }, ms);
    timers.add(timer);
  });

  function send(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'POST' || !['/', '/pipeline', '/multi-exec'].includes(path)) {
      return send(res, 404, { error: 'SRH: Endpoint not found. SRH might not support this feature yet.' });
    }
    if (!req.headers['content-type']?.startsWith('application/json')) {
      return send(res, 400, { error: 'Invalid content type. Expected application/json.' });
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!auth) return send(res, 400, { error: 'Missing/Invalid authorization header' });
    if (auth[1] !== token) return send(res, 401, { error: 'Invalid token' });
    let body: unknown;
    let text: string;
    try {
      text = await readBody(req);
      body = JSON.parse(text);
    } catch {
      return send(res, 400, { error: 'Invalid JSON body.' });
    }
    const batch = path === '/';
    const commands = (batch ? [body] : body) as unknown[][];
    if (!Array.isArray(commands) || !commands.every((c) => Array.isArray(c) && c.length > 0)) {
      return send(res, 400, { error: 'Invalid command array.' });
    }
    const logged: BridgeRequest = { path, commands: commands.map((c) => String(c[0]).toUpperCase()), bytes: text.length, start: performance.now() };
    requests.push(logged);
    const encode = req.headers['upstash-encoding'] === 'base64' ? toBase64 : (v: RespValue) => v;
    const item = (value: RespValue) => (value instanceof RespError ? { error: value.message } : { result: encode(value) });
    const rewritten = commands.map(rewrite);

    let reply: { status: number; body: unknown };
    if (batch) {
      const [value] = await redis.send(rewritten);
      reply = value instanceof RespError ? { status: 400, body: { error: value.message } } : { status: 200, body: { result: encode(value!) } };
    } else if (path === '/pipeline') {
      reply = { status: 200, body: (await redis.send(rewritten)).map(item) };
    } else {
      const replies = await redis.send([['MULTI'], ...rewritten, ['EXEC']]);
      const exec = replies[replies.length - 1]!;
      reply = exec instanceof RespError || !Array.isArray(exec)
        ? { status: 400, body: { error: exec instanceof RespError ? exec.message : 'EXECABORT' } }
        : { status: 200, body: exec.map(item) };
    }
    if (delayMs > 0) await wait(delayMs);
    logged.end = performance.now();
    send(res, reply.status, reply.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) send(res, 500, { error: `SRH: Unable to connect to the Redis server: ${String(error)}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    token,
    env: { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, MCP_STATE_SECRET: 'the deployment secret, 32 characters or more' },
    requests,
    setDelay(ms) {
      delayMs = ms;
    },
    async reset() {
      await redis.send([['FLUSHALL']]);
      requests.length = 0;
    },
    close: () => new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.close(() => resolve());
      server.closeAllConnections();
      redis.close();
    }),
  };
}
