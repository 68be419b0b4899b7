/** `platform` agents: the agent contract on the test upstream's platform endpoint (test/support/upstream-server.ts). */

import { startUpstream } from '../../support/upstream.js';
import { describeAgentFormat } from '../contract/suite.js';

describeAgentFormat('platform', {
  progress: 'whole',
  usage: { unknown: 'a platform endpoint answers text, with no usage' },
  noErrorInReply: 'its reply is one JSON body, read whole; a body without text is a malformed reply (test/agent/failures.test.ts)',
  async start() {
    const upstream = await startUpstream();
    return {
      settings: { url: `${upstream.url}/platform/chat` },
      says: {
        // The upstream keeps the conversation under the id agent-mcp derives for it, and counts its turns.
        reply: (message, turn) => `Platform platform-agent turn ${turn}: ${message}`,
        streamed: (marker) => `whole ${marker}`,
        long: (marker) => `fault:wait 5000 ${marker}`,
        serverError: 'fault:secrets',
        huge: (bytes) => `fault:huge ${bytes}`,
      },
      received: async (text) => (await upstream.requestsFor(text)).length > 0,
      aborted: (text) => upstream.closedFor(text),
      close: async () => upstream.stop(),
    };
  },
});
