/**
 * `openai` agents (Chat Completions): the agent contract on the test upstream (test/support/upstream-server.ts), whose
 * stream the official `openai` SDK reads here as the adapter does.
 */

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startUpstream, type Upstream } from '../../support/upstream.js';
import { describeAgentFormat } from '../contract/suite.js';

describeAgentFormat('openai', {
  progress: 'streams',
  usage: 'reported',
  async start() {
    const upstream = await startUpstream();
    return {
      settings: { url: `${upstream.url}/v1`, model: 'test-model' },
      says: {
        reply: (message, turn) => `Echo: ${message} (history ${2 * (turn - 1)})`,
        streamed: (marker) => `fault:slow ${marker}`,
        long: (marker) => `fault:pace 500 ${marker}`,
        serverError: 'fault:secrets',
        errorInReply: { message: 'fault:stream-secrets', secret: 'db.internal.corp:5432' },
        huge: (bytes) => `fault:huge ${bytes}`,
      },
      received: async (text) => (await upstream.requestsFor(text)).length > 0,
      aborted: (text) => upstream.closedFor(text),
      close: async () => upstream.stop(),
    };
  },
});

describe('the test upstream is faithful: the official openai SDK reads the stream the adapter reads', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.stop());

  test('a streamed completion: the SDK reads the same text, in the same pieces', async () => {
    const sdk = new OpenAI({ apiKey: 'sk-test', baseURL: `${upstream.url}/v1` });
    const stream = await sdk.chat.completions.create({ model: 'test-model', stream: true, messages: [{ role: 'user', content: 'faithful?' }] });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    expect(pieces.join('')).toBe('Echo: faithful? (history 0)');
    expect(pieces.length).toBeGreaterThan(1);
  });
});
