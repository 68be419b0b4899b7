/**
 * Test support for x402 (test-only): the real `@x402/evm` exact-scheme facilitator logic running in this
 * process behind a FAKE CHAIN. The chain is the only fake: signatures are real EIP-712 / ECDSA (payers are
 * throwaway viem keys), and verification, matching and settlement decisions are the library's own. The
 * fake chain knows one contract (Base Sepolia USDC), treats every other address as an EOA, remembers used
 * EIP-3009 nonces like the token contract does, and can be told to revert settlements.
 *
 * `upto` payments (Permit2, through x402's upto proxy) settle on the same fake chain, which does what the proxy and
 * Permit2 would: it checks the payer's Permit2 signature over the signed ceiling, refuses a settlement above that
 * ceiling or a nonce used before, and records the amount actually moved beside the ceiling (Transfer.ceiling).
 *
 * The facilitator is reachable two ways, both through x402's `FacilitatorClient` interface: in process, or
 * over HTTP speaking the facilitator API (POST /verify, POST /settle, GET /supported; x402 v2 spec §7), which
 * the production `HTTPFacilitatorClient` talks to.
 */

import { createServer, type Server } from 'node:http';
import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator';
import { PERMIT2_ADDRESS, uptoPermit2WitnessTypes, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { getAddress, verifyTypedData, type Hex } from 'viem';

export const TEST_NETWORK = 'eip155:84532' as const;
/** The same chain's x402 v1 name. */
export const TEST_NETWORK_V1 = 'base-sepolia' as const;
/** Base Sepolia USDC, the asset `@x402/evm` picks for a `$` price on eip155:84532. */
export const TEST_ASSET = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const FACILITATOR_ADDRESS = '0x000000000000000000000000000000000000fAc1';

export interface Transfer {
  from: string;
  to: string;
  value: bigint;
  nonce: string;
  hash: Hex;
  /** For an upto settlement: the most its payer signed for. */
  ceiling?: bigint;
}

/** The upto proxy's `settle(permit, amount, owner, witness, signature)` arguments (x402UptoPermit2ProxyABI). */
type UptoSettleArgs = readonly [
  { permitted: { token: Hex; amount: bigint }; nonce: bigint; deadline: bigint },
  bigint,
  Hex,
  { to: Hex; facilitator: Hex; validAfter: bigint },
  Hex,
];

export interface FakeChain {
  /** Every transferWithAuthorization the facilitator broadcast and the chain accepted. */
  transfers: Transfer[];
  /** Makes settlements revert (true) or succeed again (false). */
  revertSettlements(on: boolean): void;
  /** The real facilitator logic on this chain, as an in-process FacilitatorClient. */
  facilitator: FacilitatorClient;
}

export function createFakeChain(): FakeChain {
  const transfers: Transfer[] = [];
  const usedNonces = new Set<string>();
  let reverting = false;
  const nonceKey = (from: unknown, nonce: unknown) => `${String(from).toLowerCase()}:${String(nonce).toLowerCase()}`;
  const isUptoProxy = (address: Hex) => getAddress(address) === getAddress(x402UptoPermit2ProxyAddress);

  /** What Permit2 and the upto proxy check before moving tokens; throws as the contract would revert. */
  async function checkUptoSettle([permit, amount, owner, witness, signature]: UptoSettleArgs) {
    const signed = await verifyTypedData({
      address: owner,
      domain: { name: 'Permit2', chainId: Number(TEST_NETWORK.split(':')[1]), verifyingContract: PERMIT2_ADDRESS },
      types: uptoPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: { permitted: permit.permitted, spender: x402UptoPermit2ProxyAddress, nonce: permit.nonce, deadline: permit.deadline, witness },
      signature,
    });
    if (!signed) throw new Error('execution reverted: Permit2: InvalidSigner');
    if (amount > permit.permitted.amount) throw new Error('execution reverted: the settlement is above the signed ceiling');
    if (usedNonces.has(nonceKey(owner, `permit2:${permit.nonce}`))) throw new Error('execution reverted: Permit2: InvalidNonce');
    if (getAddress(witness.facilitator) !== getAddress(FACILITATOR_ADDRESS)) throw new Error('execution reverted: the caller is not the signed facilitator');
  }

  const signer = {
    getAddresses: () => [FACILITATOR_ADDRESS] as const,
    async getCode({ address }: { address: Hex }) {
      return (getAddress(address) === getAddress(TEST_ASSET) ? '0x6080604052' : '0x') as Hex;
    },
    async readContract({ address, functionName, args = [] }: { address: Hex; functionName: string; args?: readonly unknown[] }) {
      if (isUptoProxy(address)) {
        if (functionName === 'PERMIT2') return PERMIT2_ADDRESS;
        if (functionName === 'settle') return checkUptoSettle(args as unknown as UptoSettleArgs);
        throw new Error(`unexpected proxy read ${functionName}`);
      }
      switch (functionName) {
        case 'allowance': return 10n ** 12n;
        case 'authorizationState': return usedNonces.has(nonceKey(args[0], args[1]));
        case 'balanceOf': return 10n ** 12n;
        case 'name': return 'USDC';
        case 'version': return '2';
        case 'transferWithAuthorization':
          if (usedNonces.has(nonceKey(args[0], args[5]))) throw new Error('FiatTokenV2: authorization is used or canceled');
          return undefined;
        default: return undefined;
      }
    },
    verifyTypedData: (args: Parameters<typeof verifyTypedData>[0]) => verifyTypedData(args),
    async writeContract({ address, functionName, args }: { address: Hex; functionName: string; args: readonly unknown[] }) {
      if (reverting) throw new Error('execution reverted: the fake chain was told to revert');
      if (isUptoProxy(address) && functionName === 'settle') {
        const settle = args as unknown as UptoSettleArgs;
        await checkUptoSettle(settle);
        const [permit, amount, owner, witness] = settle;
        usedNonces.add(nonceKey(owner, `permit2:${permit.nonce}`));
        const hash = `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}` as Hex;
        transfers.push({ from: owner, to: witness.to, value: amount, nonce: String(permit.nonce), hash, ceiling: permit.permitted.amount });
        return hash;
      }
      if (functionName !== 'transferWithAuthorization') throw new Error(`unexpected call ${functionName}`);
      const key = nonceKey(args[0], args[5]);
      if (usedNonces.has(key)) throw new Error('execution reverted: FiatTokenV2: authorization is used or canceled');
      usedNonces.add(key);
      const hash = `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}` as Hex;
      transfers.push({ from: String(args[0]), to: String(args[1]), value: args[2] as bigint, nonce: String(args[5]), hash });
      return hash;
    },
    async sendTransaction(): Promise<Hex> {
      throw new Error('the fake chain sends no raw transactions');
    },
    async waitForTransactionReceipt() {
      return { status: 'success' };
    },
  };

  // Both protocol versions, as public facilitators serve them (x402 v1 payloads verify by the v1 rules).
  const facilitator = new x402Facilitator()
    .register(TEST_NETWORK, new ExactEvmScheme(signer))
    .register(TEST_NETWORK, new UptoEvmScheme(signer))
    .registerV1(TEST_NETWORK_V1 as never, new ExactEvmSchemeV1(signer));
  return {
    transfers,
    revertSettlements: (on) => {
      reverting = on;
    },
    facilitator: {
      verify: (payload, requirements) => facilitator.verify(payload, requirements),
      settle: (payload, requirements) => facilitator.settle(payload, requirements),
      getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
    },
  };
}

/** The facilitator API over loopback HTTP in front of `facilitator`; `calls` lists the paths it served. */
export async function serveFacilitator(facilitator: FacilitatorClient) {
  const calls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    calls.push(req.url ?? '');
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
    };
    try {
      if (req.method === 'GET' && req.url === '/supported') return reply(200, await facilitator.getSupported());
      const body = text ? JSON.parse(text) : {};
      if (req.method === 'POST' && req.url === '/verify') return reply(200, await facilitator.verify(body.paymentPayload, body.paymentRequirements));
      if (req.method === 'POST' && req.url === '/settle') return reply(200, await facilitator.settle(body.paymentPayload, body.paymentRequirements));
      reply(404, { error: 'not found' });
    } catch (error) {
      reply(500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
