/**
 * Test support: a real redis-server with the Upstash REST bridge in front of it, as one handle. Suites start
 * one in `beforeAll` and stop it in `afterAll`; keys get random prefixes or the suite calls `reset()`.
 */

import { connectResp, type RespClient } from './resp.js';
import { startRedisServer } from './redis-server.js';
import { startUpstashBridge, type UpstashBridge } from './upstash-bridge.js';
import type { UpstashConfig } from '../../lib/store/upstash-config.js';

export interface SharedRedis {
  bridge: UpstashBridge;
  /** What `readUpstashConfig` would read from `bridge.env`. */
  config: UpstashConfig;
  /** A direct RESP connection to the same redis-server, for looking behind the REST API. */
  direct: RespClient;
  stop(): Promise<void>;
}

export async function startSharedRedis(): Promise<SharedRedis> {
  const redis = await startRedisServer();
  const bridge = await startUpstashBridge(redis.port);
  const direct = await connectResp(redis.port);
  return {
    bridge,
    config: { url: bridge.url, token: bridge.token, urlVariable: 'UPSTASH_REDIS_REST_URL' },
    direct,
    async stop() {
      direct.close();
      await bridge.close();
      await redis.stop();
    },
  };
}
