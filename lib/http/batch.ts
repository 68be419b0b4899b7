/**
 * Bounds on a legacy (2025-03-26) JSON-RPC batch, the one way a single POST carries many calls:
 * - at most `maxBatch` messages (MCP_MAX_BATCH), else 400 with -32600 for the whole batch;
 * - every message counts against the rate limits, notifications and responses too: each can write state (a
 *   `notifications/cancelled` files a cancellation, a response files an answer), and a batch of 32 notifications
 *   once wrote 32 store entries for the price of one POST. The HTTP step counted the POST once; the batch's
 *   further messages are charged here, at once, and a batch the budget cannot cover is refused whole (429).
 *   Refusing the whole batch keeps a batch atomic for the client (nothing ran, retry it after Retry-After) and
 *   lets the refusal travel as HTTP 429 with Retry-After, which every client's transport already handles.
 */

import type { Classified } from '../protocol/classify.js';
import { INVALID_REQUEST } from '../protocol/errors.js';
import type { RequestLimits } from '../limits/index.js';
import type { Principal } from '../server/context.js';
import { createCountedWarning } from '../warn.js';
import { withProtocolVersion } from './protocol-version.js';
import { errorReply } from './replies.js';

export type BatchCheck = (request: Request, classified: Classified, principal?: Principal) => Promise<Response | undefined>;

export function createBatchCheck(maxBatch: number, limits: RequestLimits | undefined): BatchCheck {
  const oversized = createCountedWarning((size, count) =>
    `refused ${count} batch${count === 1 ? '' : 'es'} over MCP_MAX_BATCH=${maxBatch} messages (latest: ${size})`);
  async function check(request: Request, classified: Classified, principal?: Principal): Promise<Response | undefined> {
    if (classified.kind !== 'legacy' || !classified.batch) return undefined;
    const size = classified.messages.length;
    if (size > maxBatch) {
      oversized.note(String(size));
      return errorReply(400, { code: INVALID_REQUEST, message: `Invalid Request: a batch holds at most ${maxBatch} messages; this one has ${size}.` });
    }
    const further = size - 1;
    if (further <= 0 || !limits) return undefined;
    const overIpLimit = await limits.byIp?.(request, further);
    if (overIpLimit) return overIpLimit;
    return principal ? limits.byPrincipal?.(principal, further) : undefined;
  }
  // A refused batch was still sent in a version we serve; its refusal says so like any reply.
  return async (request, classified, principal) => {
    const refused = await check(request, classified, principal);
    return refused && classified.kind === 'legacy' ? withProtocolVersion(refused, classified.version) : refused;
  };
}
