/** Every bound has a variable and a default; a bad value stops start-up with a TypeError naming the variable. */

import { afterEach, describe, expect, test, vi } from 'vitest';
import { readAgentErrorDetail, readAgentMaxReplyBytes, readToolLimits } from '../../lib/agent/config.js';
import { DEFAULT_MAX_REPLY_BYTES } from '../../lib/agent/upstream/request.js';
import { createDefaultApp } from '../../lib/app.js';
import { DEFAULT_REQUEST_BOUNDS, readRequestBounds } from '../../lib/http/bounds.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';

afterEach(() => vi.restoreAllMocks());

describe('defaults', () => {
  test('absent variables mean 4 MiB bodies, JSON 64 deep, batches of 32, 1 MiB stream logs, 64 MiB of them in memory, 10 resumed streams a caller and 8 MiB agent replies', () => {
    expect(readRequestBounds({})).toEqual({ maxBodyBytes: 4 * 1024 * 1024, maxJsonDepth: 64, maxBatch: 32, maxStreamLogBytes: 1024 * 1024, maxStreamLogMemoryBytes: 64 * 1024 * 1024, maxResumedStreams: 10 });
    expect(DEFAULT_REQUEST_BOUNDS).toEqual(readRequestBounds({}));
    expect(readAgentMaxReplyBytes({})).toBe(8 * 1024 * 1024);
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(8 * 1024 * 1024);
  });

  test('absent variables mean 128 tool calls a reply, and upstream error text for the log only', () => {
    expect(readToolLimits({}).maxCallsPerReply).toBe(128);
    expect(readAgentErrorDetail({})).toBe('log');
    expect(readToolLimits({ AGENT_MAX_TOOL_CALLS_PER_REPLY: '300' }).maxCallsPerReply).toBe(300);
    expect(readAgentErrorDetail({ AGENT_ERROR_DETAIL: 'pass' })).toBe('pass');
  });

  test('set variables are used', () => {
    expect(readRequestBounds({ MCP_MAX_BODY_BYTES: '1000', MCP_MAX_JSON_DEPTH: '8', MCP_MAX_BATCH: '4', MCP_MAX_STREAM_LOG_BYTES: '2048', MCP_MAX_STREAM_LOG_MEMORY_BYTES: '4096', MCP_MAX_RESUMED_STREAMS: '2' }))
      .toEqual({ maxBodyBytes: 1000, maxJsonDepth: 8, maxBatch: 4, maxStreamLogBytes: 2048, maxStreamLogMemoryBytes: 4096, maxResumedStreams: 2 });
    expect(readAgentMaxReplyBytes({ AGENT_MAX_REPLY_BYTES: '2048' })).toBe(2048);
  });
});

describe('a bad value names its variable', () => {
  test.each([
    ['MCP_MAX_BODY_BYTES', '4MB'],
    ['MCP_MAX_JSON_DEPTH', '0'],
    ['MCP_MAX_BATCH', '-1'],
    ['MCP_MAX_STREAM_LOG_BYTES', '1MB'],
    ['MCP_MAX_STREAM_LOG_MEMORY_BYTES', '64MB'],
    ['MCP_MAX_RESUMED_STREAMS', 'lots'],
  ])('%s=%s is a TypeError', (name, value) => {
    expect(() => readRequestBounds({ [name]: value })).toThrow(new TypeError(`${name} must be a positive integer, got "${value}".`));
  });

  test('AGENT_MAX_REPLY_BYTES=1.5 is a TypeError', () => {
    expect(() => readAgentMaxReplyBytes({ AGENT_MAX_REPLY_BYTES: '1.5' })).toThrow(new TypeError('AGENT_MAX_REPLY_BYTES must be a positive integer, got "1.5".'));
  });

  test('RATE_LIMIT_TIMEOUT_MS=soon is a TypeError', () => {
    expect(() => createLimitsFromEnv({ RATE_LIMIT_IP: '1/1m', RATE_LIMIT_TIMEOUT_MS: 'soon' }, undefined))
      .toThrow(new TypeError('RATE_LIMIT_TIMEOUT_MS must be a positive integer of milliseconds, got "soon".'));
  });

  test('the default app refuses to start with a bad bound', () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    expect(() => createDefaultApp({ MCP_MAX_BATCH: 'many' })).toThrow(/MCP_MAX_BATCH/);
    expect(() => createDefaultApp({ MEMORY_STORE_MAX_BYTES: 'lots' })).toThrow(/MEMORY_STORE_MAX_BYTES/);
    expect(() => createDefaultApp({ MEMORY_STORE_MAX_BYTES_PER_CALLER: '0' })).toThrow(/MEMORY_STORE_MAX_BYTES_PER_CALLER/);
    expect(() => createDefaultApp({ MEMORY_STORE_MAX_BYTES: '1000', MEMORY_STORE_MAX_BYTES_SECURITY: '5000' })).toThrow(/MEMORY_STORE_MAX_BYTES_SECURITY must be at most/);
  });
});

test('start-up\'s details (MCP_LOG=debug) name the request bounds and the memory store budget', () => {
  const lines = createDefaultApp({ MCP_MAX_BATCH: '8', MEMORY_STORE_MAX_ENTRIES: '500' }).startup!.details;
  expect(lines).toContain('request bounds: body 4194304 bytes (MCP_MAX_BODY_BYTES), JSON depth 64 (MCP_MAX_JSON_DEPTH), batch 8 messages (MCP_MAX_BATCH), '
    + 'stream log 1048576 bytes (MCP_MAX_STREAM_LOG_BYTES), 67108864 bytes of stream logs in memory (MCP_MAX_STREAM_LOG_MEMORY_BYTES), '
    + '10 resumed streams per caller (MCP_MAX_RESUMED_STREAMS)');
  expect(lines).toContain('concurrent calls: at most 16 per caller on each instance (MCP_MAX_CONCURRENT_CALLS)');
  expect(lines.find((l) => l.includes('store: memory'))).toContain('at most 67108864 bytes and 500 entries');
});
