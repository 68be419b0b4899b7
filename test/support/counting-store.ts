/** Test support: a memory store that counts the waits under way (store.watch), through every view of it. */

import { MemoryStore } from '../../lib/store/memory.js';
import type { Ready, Store, StoreBudget, WaitOptions } from '../../lib/store/types.js';

/**
 * The memory store, counting the waits under way (a question waiting for the client's answer is one) through every
 * view of it: a request reads the store through a view charged to its caller's budget (withBudget).
 */
export class CountingStore extends MemoryStore {
  waiting = 0;
  /** The most waits under way at once since the last reset: shows the count sees the questions at all. */
  peak = 0;
  override async watch(keys: string[], ready: Ready, options: WaitOptions): Promise<unknown[] | undefined> {
    this.peak = Math.max(this.peak, ++this.waiting);
    try {
      return await super.watch(keys, ready, options);
    } finally {
      this.waiting--;
    }
  }

  override withBudget(budget: StoreBudget): Store {
    const view = super.withBudget(budget);
    const counted = async (keys: string[], ready: Ready, options: WaitOptions) => {
      this.peak = Math.max(this.peak, ++this.waiting);
      try {
        return await view.watch(keys, ready, options);
      } finally {
        this.waiting--;
      }
    };
    // The view's methods read its private fields, so each runs on the view itself.
    return new Proxy(view, {
      get: (target, name) => {
        if (name === 'watch') return counted;
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

