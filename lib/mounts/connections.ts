/**
 * Tracks connection attempts that are still under way, so a request can wait for them before it answers.
 * The pattern is the one Cloudflare's agents adopted for MCP tools missing after a wake-up
 * (cloudflare/agents#996): attempts start in the background and are never awaited where they start; a
 * reader that needs them complete waits, with a bound, for the ones pending at that moment.
 */

export interface WaitOptions {
  /** Longest wait in milliseconds; 0 or negative returns at once; absent or not finite waits until all settle. */
  timeout?: number;
  /** Stops waiting when aborted (the request that waits was cancelled). */
  signal?: AbortSignal;
}

export interface ConnectionTracker {
  /** Follows `attempt` under `name` until it settles; a newer attempt under the same name replaces it. */
  track(name: string, attempt: Promise<unknown>): void;
  /** Names with an attempt still under way. */
  pending(): string[];
  /**
   * Resolves once every attempt pending now has settled (connected and listed, or failed), or when the
   * timeout passes or the signal aborts. Never rejects; concurrent callers each wait on the same attempts.
   */
  waitForConnections(options?: WaitOptions): Promise<void>;
}

export function createConnectionTracker(): ConnectionTracker {
  const attempts = new Map<string, Promise<void>>();

  return {
    track(name, attempt) {
      const settled = attempt.then(() => undefined, () => undefined);
      attempts.set(name, settled);
      // Only this attempt's own entry is removed: a retry that replaced it stays tracked.
      void settled.then(() => {
        if (attempts.get(name) === settled) attempts.delete(name);
      });
    },
    pending: () => [...attempts.keys()],
    waitForConnections({ timeout, signal } = {}) {
      if (attempts.size === 0 || (timeout !== undefined && timeout <= 0) || signal?.aborted) return Promise.resolve();
      const all = Promise.all(attempts.values()).then(() => undefined);
      const bounded = timeout !== undefined && Number.isFinite(timeout);
      if (!bounded && !signal) return all;
      return new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', finish);
          resolve();
        };
        const timer = bounded ? setTimeout(finish, timeout) : undefined;
        signal?.addEventListener('abort', finish, { once: true });
        void all.then(finish);
      });
    },
  };
}
