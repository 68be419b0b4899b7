/**
 * Token prices per agent (docs/payments.md "Charging by use (upto)"; issue 45 item 4): an agent's `priceInput`,
 * `priceOutput` and `maxPrice` override X402_PRICE_INPUT/OUTPUT and X402_MAX_PRICE for calls to it. The offer follows
 * the call's `agent_id`, so its PaymentRequired, the verification and the settlement all use that agent's prices.
 * A real Permit2 `upto` signature, the real @x402/evm facilitator behind the stand-in chain (test/support/x402-chain.ts),
 * the real MCP endpoint on loopback.
 */

import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { readAgents } from '../../lib/agent/config.js';
import type { AgentTurn } from '../../lib/agent/types.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { PAYMENT_RESPONSE_META_KEY } from '../../lib/pay/payload.js';
import { CHARGED_META_KEY, PRICE_META_KEY } from '../../lib/pay/with-payment.js';
import { post } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createFakeChain, serveFacilitator, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x3333333333333333333333333333333333333333';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const DEFAULT_PRICES = { X402_PRICE_INPUT: '$3', X402_PRICE_OUTPUT: '$15', X402_MAX_PRICE: '$0.50' };

/** Both agents report the same usage: 1200 input and 800 output tokens in one model request. */
async function* meteredAgent(turn: AgentTurn): AsyncIterable<string> {
  turn.usage?.record({ input: 1200, output: 800 });
  yield `You said: ${turn.message}`;
}

const AGENTS = [
  { id: 'standard', name: 'Standard', description: 'Priced as the deployment.', reply: meteredAgent },
  { id: 'premium', name: 'Premium', description: 'Priced on its own.', reply: meteredAgent, priceInput: '$10', priceOutput: '$30', maxPrice: '$0.90' },
  { id: 'capped', name: 'Capped', description: 'Own prices, the deployment\'s ceiling.', reply: meteredAgent, priceInput: '$1', priceOutput: '$2' },
];

let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let server: TestServer;

beforeAll(async () => {
  chain = createFakeChain();
  facilitator = await serveFacilitator(chain.facilitator);
  const env = { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, ...DEFAULT_PRICES };
  server = await startTestServer(createMcpHandler(createApp({
    definitions: defaultDefinitions(env, { agents: AGENTS }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
});

afterAll(async () => {
  await server?.close();
  await facilitator?.close();
});

async function rpc(method: string, params: Record<string, unknown>) {
  const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: crypto.randomUUID(), method, params }, LEGACY);
  return (await response.json()).result;
}

const chat = (args: Record<string, unknown>, payment?: unknown) =>
  rpc('tools/call', { name: 'chat_with_agent', arguments: args, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) });

const uptoAmount = (required: PaymentRequired) => required.accepts.find((r) => r.scheme === 'upto')?.amount;

describe('token prices per agent', () => {
  test('the unpaid call\'s accepts names the ceiling of the agent it asks for', async () => {
    expect(uptoAmount((await chat({ agent_id: 'standard', message: 'hi' })).structuredContent)).toBe('500000');
    expect(uptoAmount((await chat({ agent_id: 'premium', message: 'hi' })).structuredContent)).toBe('900000');
    // No maxPrice of its own: X402_MAX_PRICE's ceiling.
    expect(uptoAmount((await chat({ agent_id: 'capped', message: 'hi' })).structuredContent)).toBe('500000');
  });

  test('two agents with different prices settle different amounts for the same usage', async () => {
    const settle = async (agentId: string) => {
      const args = { agent_id: agentId, message: 'what does this cost?' };
      const payer = createPayer();
      const result = await chat(args, await payer.payUpto((await chat(args)).structuredContent));
      expect(result.isError).toBeFalsy();
      const receipt = result._meta[PAYMENT_RESPONSE_META_KEY];
      expect(chain.transfers.filter((t) => t.hash === receipt.transaction)).toEqual([expect.objectContaining({ value: BigInt(receipt.amount), to: PAY_TO })]);
      return result._meta[CHARGED_META_KEY];
    };
    // 1200 × $3/M + 800 × $15/M = $0.0156.
    expect(await settle('standard')).toEqual({ scheme: 'upto', amount: '15600', price: '$0.0156', basis: 'usage', ceiling: '500000' });
    // 1200 × $10/M + 800 × $30/M = $0.036.
    expect(await settle('premium')).toEqual({ scheme: 'upto', amount: '36000', price: '$0.036', basis: 'usage', ceiling: '900000' });
    // 1200 × $1/M + 800 × $2/M = $0.0028.
    expect(await settle('capped')).toEqual({ scheme: 'upto', amount: '2800', price: '$0.0028', basis: 'usage', ceiling: '500000' });
  });

  test('a payment signed for one agent\'s ceiling does not pay a call to another', async () => {
    const payment = await createPayer().payUpto((await chat({ agent_id: 'standard', message: 'hi' })).structuredContent);
    const transfers = chain.transfers.length;
    const result = await chat({ agent_id: 'premium', message: 'hi' }, payment);
    expect(result.isError).toBe(true);
    expect(uptoAmount(result.structuredContent)).toBe('900000');
    expect(chain.transfers.length).toBe(transfers);
  });

  test('tools/list keeps the deployment\'s prices; each agent:// resource says its own', async () => {
    const { tools } = await rpc('tools/list', {});
    const listed = tools.find((t: { name: string }) => t.name === 'chat_with_agent');
    expect(listed._meta[PRICE_META_KEY].upto).toEqual({ perMillionTokens: { input: '$3', output: '$15' }, max: '$0.50' });
    const read = async (id: string) => JSON.parse((await rpc('resources/read', { uri: `agent://${id}` })).contents[0].text);
    expect((await read('premium')).prices).toEqual({ perMillionTokens: { input: '$10', output: '$30' }, max: '$0.90' });
    expect((await read('capped')).prices).toEqual({ perMillionTokens: { input: '$1', output: '$2' }, max: '$0.50' });
    expect((await read('standard')).prices).toBeUndefined();
  });
});

describe('an agent\'s token prices are checked at start-up, naming the agent and the field', () => {
  const paid = { X402_PAY_TO: PAY_TO };
  const agent = (fields: Record<string, unknown>) => JSON.stringify([{ id: 'a', url: 'http://localhost:9/v1', model: 'm', ...fields }]);

  test.each([
    [{ priceInput: '3 dollars', priceOutput: '$15', maxPrice: '$1' }, /AGENTS: agent a priceInput must be a USD amount such as "\$3", got "3 dollars"/],
    [{ priceInput: '$3', priceOutput: 15, maxPrice: '$1' }, /AGENTS: agent a priceOutput must be a USD amount/],
    [{ priceInput: '$3', priceOutput: '$15', maxPrice: '$0' }, /AGENTS: agent a maxPrice must be a positive USD amount/],
    [{ priceInput: '$3', maxPrice: '$1' }, /AGENTS: agent a priceOutput is not set/],
    [{ priceInput: '$0', priceOutput: '$0', maxPrice: '$1' }, /AGENTS: agent a priceInput and priceOutput are both zero/],
    [{ priceInput: '$3', priceOutput: '$15' }, /agent a sets priceInput and priceOutput but no maxPrice, and X402_MAX_PRICE is not set/],
  ])('AGENTS %j is refused', (fields, message) => {
    expect(() => readAgents({ ...paid, AGENTS: agent(fields) })).toThrow(message);
  });

  test('an in-process agent\'s bad price is refused naming it', () => {
    expect(() => readAgents(paid, [{ ...AGENTS[1]!, priceOutput: 'lots' }])).toThrow(/in-process agent premium priceOutput must be a USD amount/);
  });
});
