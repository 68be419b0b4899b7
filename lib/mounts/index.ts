/** Mounted MCP servers: configuration, the connection manager and the status resource (docs/mounts.md "Mount an MCP server"). */

import { readRequestBounds } from '../http/bounds.js';
import { readMountWait, readMounts } from './config.js';
import { createMounts, type Mounts } from './mounts.js';

export { MOUNT_SEPARATOR, readMountWait, readMounts, type MountConfig, type MountInput } from './config.js';
export type { WaitOptions } from './connections.js';
export { createMounts, type MountState, type MountStatus, type Mounts, type MountsOptions } from './mounts.js';
export { MOUNT_STATUS_URI, mountStatusDefinitions } from './status.js';
export { listToolsInProcess } from './in-process.js';

/** The mounts MCP_MOUNTS configures, connecting in the background; undefined when none are configured. */
export function mountsFromEnv(env: Record<string, string | undefined>): Mounts | undefined {
  const mounts = readMounts(env);
  const waitMs = readMountWait(env);
  return mounts.length === 0 ? undefined : createMounts({ mounts, waitMs, maxJsonDepth: readRequestBounds(env).maxJsonDepth });
}
