/**
 * Work that outlives its response. On Vercel an instance may be frozen once its response has ended, so a
 * streamed call whose stream closed early (SEP-1699 polling, a client that left) would stall until some later
 * request woke the instance. `waitUntil` (@vercel/functions) keeps the instance until the work settles; off
 * Vercel nothing is needed. The module loads with the first streamed call, never on a cold start.
 */

export function keepAlive(work: Promise<unknown>): void {
  if (!process.env.VERCEL) return;
  void import('@vercel/functions')
    .then(({ waitUntil }) => waitUntil(work))
    .catch((error: unknown) => console.error('[agent-mcp] waitUntil is unavailable:', error));
}
