/**
 * What a format loaded with its first call (index.ts) needs of the code every cold start loads, handed to it rather
 * than imported: a module imported both by the start-up file and by a chunk that `import()` loads becomes a chunk
 * of its own, which the start-up file then imports, and each file a cold start loads costs it ~0.5 ms
 * (docs/architecture.md "Bundling"). So a lazily loaded format imports only types from the start path, and its
 * requests, replies, errors and bounds are the very ones the eager formats use.
 */

import { EVENT_STREAM } from '../../protocol/headers.js';
import { createCountedWarning } from '../../warn.js';
import { metered, meteredRequest } from '../budget.js';
import { pushedReply } from '../push.js';
import { runToolLoop, tooManyCalls } from '../tool-loop.js';
import { AgentError, callCancelled } from '../types.js';
import { streamError } from './error-text.js';
import { getUpstream, postUpstream } from './request.js';
import { upstreamJson } from './json.js';

export const KIT = { EVENT_STREAM, AgentError, callCancelled, createCountedWarning, metered, meteredRequest, pushedReply, runToolLoop, tooManyCalls, streamError, getUpstream, postUpstream, upstreamJson };

export type Kit = typeof KIT;
