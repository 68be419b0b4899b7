/**
 * Test support: counts the AbortControllers made while a function runs. On Node 20 each one costs more than much
 * of a call (lib/server/cancellation.ts), so the tests that hold a path to making none count them.
 */

export async function controllersMadeBy(run: () => unknown): Promise<number> {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made += 1;
    }
  };
  try {
    await run();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}
