/**
 * SHA-256 of a string, as lowercase hex. node:crypto rather than WebCrypto: `crypto.subtle.digest` goes through
 * the thread pool (~23 µs a call here, against ~2 µs), and this runs on every chat call. Imported on first use,
 * since loading node:crypto costs a cold start ~1.4 ms.
 */

let nodeCrypto: Promise<typeof import('node:crypto')> | undefined;

export async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await (nodeCrypto ??= import('node:crypto'));
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The same, for a caller that cannot wait (a store key is built synchronously: lib/server/caller.ts keyOf). Only
 * long key parts need it, so node:crypto loads with the first one rather than at start.
 */
export function sha256HexSync(text: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
}
