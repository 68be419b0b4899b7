import { describe, expect, test, vi, afterEach } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, createDefaultApp, defaultDefinitions } from '../../lib/app.js';
import * as z from 'zod';
import { defineTool } from '../../lib/define/tool.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { readPayment } from '../../lib/pay/payload.js';

const PAY_TO = '0x1111111111111111111111111111111111111111';
afterEach(() => vi.restoreAllMocks());

describe('paid-call settings', () => {
  test('off unless X402_PAY_TO is set; defaults are $0.01 on Base Sepolia through the x402.org facilitator', () => {
    expect(readPayConfig({})).toBeUndefined();
    expect(readPayConfig({ X402_PAY_TO: PAY_TO })).toEqual({
      payTo: PAY_TO, price: '$0.01', network: 'eip155:84532', facilitatorUrl: 'https://x402.org/facilitator', maxTimeoutSeconds: 300,
      payloadBounds: { maxBodyBytes: 4 * 1024 * 1024, maxJsonDepth: 64 },
    });
  });

  test('a base64 payment decodes within the body\'s bounds, read from MCP_MAX_BODY_BYTES and MCP_MAX_JSON_DEPTH', () => {
    expect(readPayConfig({ X402_PAY_TO: PAY_TO, MCP_MAX_BODY_BYTES: '1000', MCP_MAX_JSON_DEPTH: '8' })?.payloadBounds)
      .toEqual({ maxBodyBytes: 1000, maxJsonDepth: 8 });
  });

  test('prices with or without $, v1 network names and a trailing slash on the URL are accepted', () => {
    expect(readPayConfig({ X402_PAY_TO: PAY_TO, X402_PRICE: '0.25', X402_NETWORK: 'base', X402_FACILITATOR_URL: 'https://f.example/x402/' }))
      .toMatchObject({ price: '$0.25', network: 'eip155:8453', facilitatorUrl: 'https://f.example/x402' });
  });

  test.each([
    [{ X402_PAY_TO: 'alice' }, 'X402_PAY_TO must be an EVM address (0x followed by 40 hex digits), got "alice".'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE: 'one cent' }, 'X402_PRICE must be a positive USD amount such as $0.01, got "one cent".'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE: '$0' }, 'X402_PRICE must be a positive USD amount such as $0.01, got "$0".'],
    [{ X402_PAY_TO: PAY_TO, X402_NETWORK: 'solana:mainnet' }, 'X402_NETWORK must be an EVM network as a CAIP-2 id such as eip155:84532 (or base, base-sepolia), got "solana:mainnet".'],
    [{ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: 'facilitator' }, 'X402_FACILITATOR_URL must be an absolute http(s) URL, got "facilitator".'],
    [{ X402_PRICE: '$1' }, 'X402_PRICE is set but X402_PAY_TO is not; set X402_PAY_TO to turn paid calls on.'],
    [{ X402_MAX_PRICE: '$1' }, 'X402_MAX_PRICE is set but X402_PAY_TO is not; set X402_PAY_TO to turn paid calls on.'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '$3' }, 'X402_PRICE_OUTPUT is not set but X402_PRICE_INPUT is; charging by use needs X402_PRICE_INPUT, X402_PRICE_OUTPUT and X402_MAX_PRICE.'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '$3', X402_PRICE_OUTPUT: '$15' }, 'X402_MAX_PRICE is not set but X402_PRICE_INPUT and X402_PRICE_OUTPUT are; charging by use needs X402_PRICE_INPUT, X402_PRICE_OUTPUT and X402_MAX_PRICE.'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: 'three', X402_PRICE_OUTPUT: '$15', X402_MAX_PRICE: '$1' }, 'X402_PRICE_INPUT must be a USD amount such as $3 (per million input tokens), got "three".'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '$3', X402_PRICE_OUTPUT: '-15', X402_MAX_PRICE: '$1' }, 'X402_PRICE_OUTPUT must be a USD amount such as $15 (per million output tokens), got "-15".'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '$3', X402_PRICE_OUTPUT: '$15', X402_MAX_PRICE: '$0' }, 'X402_MAX_PRICE must be a positive USD amount such as $0.50, got "$0".'],
    [{ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '0', X402_PRICE_OUTPUT: '$0.00', X402_MAX_PRICE: '$1' }, 'X402_PRICE_INPUT and X402_PRICE_OUTPUT are both zero; set a price for input or output tokens, or unset all three token price variables.'],
  ])('misconfiguration fails at start-up naming the variable: %j', (env, message) => {
    expect(() => readPayConfig(env)).toThrow(new TypeError(message));
  });

  test('token prices per million and the ceiling per call are read as a set (a zero price for one side is allowed)', () => {
    expect(readPayConfig({ X402_PAY_TO: PAY_TO, X402_PRICE_INPUT: '0', X402_PRICE_OUTPUT: '15', X402_MAX_PRICE: '$0.50' })?.tokens)
      .toEqual({ input: '$0', output: '$15', max: '$0.50' });
  });

  test('a tool\'s own price that is not a positive USD amount stops start-up naming the tool', () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const tool = defineTool({ name: 'dear', description: 'd', input: z.object({}), price: '$free' as `$${string}`, run: () => 'x' });
    expect(() => createDefaultApp({ X402_PAY_TO: PAY_TO }, { tools: [tool] }))
      .toThrow(new TypeError('Tool "dear" (tools/index.ts) has price "$free"; a price is a positive USD amount such as \'$0.05\'.'));
    const priced = defineTool({ name: 'priced', description: 'd', input: z.object({}), price: '$0.05', run: () => 'x' });
    expect(() => createDefaultApp({}, { tools: [priced] }))
      .toThrow(new TypeError('Tool "priced" (tools/index.ts) is priced, but X402_PAY_TO is not set; set X402_PAY_TO or drop price.'));
  });

  test('the deployment\'s app refuses to start on a bad X402_PAY_TO', () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    expect(() => createDefaultApp({ X402_PAY_TO: '0x12' })).toThrow(TypeError);
  });
});

describe('where the payment travels', () => {
  const payload = { x402Version: 2, accepted: { scheme: 'exact' }, payload: { signature: '0x' } };
  test.each([
    ['an object under x402/payment', { 'x402/payment': payload }],
    ['a base64 string under x402/payment', { 'x402/payment': btoa(JSON.stringify(payload)) }],
    ['an object under x402.payment', { 'x402.payment': payload }],
  ])('%s', (_, meta) => {
    expect(readPayment(meta)).toEqual({ kind: 'payload', payload });
  });

  test.each([
    [{ 'x402/payment': 'not base64 json' }, /^invalid_payload/],
    [{ 'x402/payment': { ...payload, x402Version: 3 } }, /^invalid_x402_version/],
    // A v1 payment names its scheme and network itself; a v2-shaped body claiming version 1 does not.
    [{ 'x402/payment': { ...payload, x402Version: 1 } }, /^invalid_payload: a version 1 payment/],
    [{ 'x402/payment': { x402Version: 2 } }, /^invalid_payload/],
  ])('a malformed payment is named: %j', (meta, reason) => {
    const read = readPayment(meta);
    expect(read.kind).toBe('invalid');
    expect(read.kind === 'invalid' && read.reason).toMatch(reason);
  });

  test('no payment at all', () => {
    expect(readPayment({ progressToken: 1 })).toEqual({ kind: 'none' });
  });
});

describe('the agent tool when X402_PAY_TO is set', () => {
  test('tools/list marks chat_with_agent as paid with its price in _meta (no facilitator contacted)', async () => {
    const handler = createMcpHandler(createApp({
      definitions: defaultDefinitions({ X402_PAY_TO: PAY_TO, X402_PRICE: '$0.05', X402_FACILITATOR_URL: 'http://127.0.0.1:9' }),
      origin: { local: true, allowedOrigins: new Set() },
      stateSecret: 'x'.repeat(32),
    }));
    const response = await handler(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }));
    const tool = (await response.json()).result.tools.find((t: { name: string }) => t.name === 'chat_with_agent');
    expect(tool._meta['x402/price']).toEqual({ scheme: 'exact', price: '$0.05', network: 'eip155:84532', payTo: PAY_TO });
    expect(tool.description).toMatch(/Each call costs \$0\.05, paid with x402 on eip155:84532\.$/);
    // Its PaymentRequired results could not match an outputSchema (see sdk-clients.test.ts).
    expect(tool.outputSchema).toBeUndefined();
  });

  test('without X402_PAY_TO the agent tool is free and unmarked', () => {
    const [definition] = defaultDefinitions({});
    expect(definition!.tools!.find((t) => t.name === 'chat_with_agent')!._meta?.['x402/price']).toBeUndefined();
  });
});
