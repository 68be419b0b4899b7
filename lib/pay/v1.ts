/**
 * x402 v1 payments (`X-PAYMENT`, `x402` 1.x clients; x402 `specs/x402-specification-v1.md`): the payload names its network by
 * name (`base-sepolia`) and pays `maxAmountRequired` of v1 requirements. We advertise v2 requirements; a v1
 * payment is checked against the same requirement (same scheme, chain, asset, amount, payee) written in v1
 * form, and the facilitator verifies and settles it by the v1 rules. The name → chain table is @x402/evm's,
 * loaded only when a v1 payment arrives.
 */

import type { PaymentPayload, PaymentPayloadV1, PaymentRequirements, PaymentRequirementsV1, ResourceInfo } from '@x402/core/types';
import type { AnyPaymentPayload } from './payload.js';

export const isV1 = (payload: AnyPaymentPayload): payload is PaymentPayloadV1 => payload.x402Version === 1;

/** The CAIP-2 network a payment is on (`eip155:<chain>`), or undefined for a v1 name we do not know. */
export async function caipNetworkOf(payload: AnyPaymentPayload): Promise<string | undefined> {
  if (!isV1(payload)) return (payload as PaymentPayload).accepted.network;
  const { EVM_NETWORK_CHAIN_ID_MAP } = await import('@x402/evm/v1');
  const chainId = (EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>)[payload.network];
  return chainId === undefined ? undefined : `eip155:${chainId}`;
}

/** The advertised requirement a v1 payment answers, in v1 form; undefined when it answers none. */
export async function v1RequirementsFor(
  accepts: PaymentRequirements[], payload: PaymentPayloadV1, resource: ResourceInfo,
): Promise<PaymentRequirementsV1 | undefined> {
  const network = await caipNetworkOf(payload);
  const match = accepts.find((r) => r.scheme === payload.scheme && r.network === network);
  if (!match) return undefined;
  return {
    scheme: match.scheme,
    network: payload.network,
    maxAmountRequired: match.amount,
    resource: resource.url,
    description: resource.description ?? '',
    mimeType: resource.mimeType ?? 'application/json',
    outputSchema: {},
    payTo: match.payTo,
    maxTimeoutSeconds: match.maxTimeoutSeconds,
    asset: match.asset,
    extra: match.extra ?? {},
  };
}
