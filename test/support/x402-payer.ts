/**
 * Test support: a payer with a throwaway key. It pays the way x402 clients do (`@x402/core` client with the
 * `@x402/evm` exact scheme, or its upto scheme), or signs a hand-made EIP-3009 authorization with viem for the cases a well-behaved
 * client never produces (expired, paying someone else). Both are real EIP-712 signatures.
 */

import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentPayloadV1, PaymentRequired, PaymentRequirements, PaymentRequirementsV1 } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TEST_NETWORK, TEST_NETWORK_V1 } from './x402-chain.js';

export function createPayer() {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new x402Client().register(TEST_NETWORK, new ExactEvmScheme(account));
  // A client that pays by use only: offered both schemes, it signs the `upto` ceiling.
  const byUse = new x402Client().register(TEST_NETWORK, new UptoEvmScheme(account));
  const v1 = new ExactEvmSchemeV1(account);
  return {
    address: account.address,
    /** What an x402 client sends after reading the PaymentRequired. */
    pay: (required: PaymentRequired): Promise<PaymentPayload> => client.createPaymentPayload(required),
    /** What an x402 client that pays by use sends: a Permit2 authorization of the `upto` ceiling. */
    payUpto: (required: PaymentRequired): Promise<PaymentPayload> => byUse.createPaymentPayload(required),
    /** What an x402 v1 client (`X-PAYMENT`) signs for the same requirement, written in v1 form. */
    async payV1(required: PaymentRequired): Promise<PaymentPayloadV1> {
      const [accepted] = required.accepts;
      const requirements: PaymentRequirementsV1 = {
        scheme: accepted!.scheme, network: TEST_NETWORK_V1 as never, maxAmountRequired: accepted!.amount, resource: required.resource.url,
        description: required.resource.description ?? '', mimeType: 'application/json', outputSchema: {}, payTo: accepted!.payTo,
        maxTimeoutSeconds: accepted!.maxTimeoutSeconds, asset: accepted!.asset, extra: accepted!.extra,
      };
      return await v1.createPaymentPayload(1, requirements as never) as PaymentPayloadV1;
    },
    /** A hand-signed EIP-3009 authorization for `requirements`, with any field overridden. */
    async sign(
      requirements: PaymentRequirements,
      override: Partial<{ to: Hex; value: string; validAfter: string; validBefore: string }> = {},
    ): Promise<PaymentPayload> {
      const now = Math.floor(Date.now() / 1000);
      const authorization = {
        from: account.address,
        to: (override.to ?? requirements.payTo) as Hex,
        value: override.value ?? requirements.amount,
        validAfter: override.validAfter ?? String(now - 600),
        validBefore: override.validBefore ?? String(now + requirements.maxTimeoutSeconds),
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      };
      const signature = await account.signTypedData({
        domain: {
          name: String(requirements.extra.name),
          version: String(requirements.extra.version),
          chainId: Number(requirements.network.split(':')[1]),
          verifyingContract: requirements.asset as Hex,
        },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'TransferWithAuthorization',
        message: {
          ...authorization,
          value: BigInt(authorization.value),
          validAfter: BigInt(authorization.validAfter),
          validBefore: BigInt(authorization.validBefore),
        },
      });
      return { x402Version: 2, accepted: requirements, payload: { authorization, signature } };
    },
  };
}

/** A payment as an HTTP header value (`X-PAYMENT`, `PAYMENT-SIGNATURE`): base64 JSON, by x402's own codec. */
export const toHeader = (payload: PaymentPayload | PaymentPayloadV1): string => encodePaymentSignatureHeader(payload as PaymentPayload);
