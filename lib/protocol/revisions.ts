/**
 * MCP protocol revisions and the two eras (basic/versioning in the 2026-07-28 spec):
 * legacy revisions open with `initialize`; modern ones carry their version in every request's `_meta`.
 */

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

/** Every revision we serve, newest first (advertised by `server/discover`). */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];

/** A legacy request without `MCP-Protocol-Version` is assumed to speak this (2025-06-18 transports). */
export const ASSUMED_LEGACY_VERSION = '2025-03-26';

export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

export function isLegacyVersion(version: unknown): version is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(version);
}

export function isModernVersion(version: unknown): boolean {
  return version === MODERN_VERSION;
}

/** JSON-RPC batches existed only in 2025-03-26 (added there, removed in 2025-06-18). */
export function allowsBatch(version: string): boolean {
  return version === '2025-03-26';
}

/** SSE polling with priming events and `Last-Event-ID` resumption came with 2025-11-25 (SEP-1699). */
export function allowsSsePolling(version: string): boolean {
  return version === '2025-11-25';
}

/** `initialize` version negotiation: echo a supported legacy version, else offer our latest. */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}
