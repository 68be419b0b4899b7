/** `mount://status`: each mount's state, so a mount that is down is visible to clients, not hidden. */

import type { RegistryDefinition } from '../server/registry.js';
import type { Mounts } from './mounts.js';

export const MOUNT_STATUS_URI = 'mount://status';

/** The status resource of `mounts`; it reports states as they are and never waits for a connection. */
export function mountStatusDefinitions(mounts: Mounts): RegistryDefinition {
  return {
    origin: 'agent-mcp itself (mount://status)',
    resources: [{
      uri: MOUNT_STATUS_URI,
      name: 'mount-status',
      title: 'Mounted MCP servers',
      description: 'The MCP servers mounted here: whether each is connecting, ready or down, and what it offers.',
      mimeType: 'application/json',
      read: () => [{ uri: MOUNT_STATUS_URI, mimeType: 'application/json', text: JSON.stringify({ mounts: mounts.status() }) }],
    }],
  };
}
