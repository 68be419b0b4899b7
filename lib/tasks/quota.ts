/**
 * How many tasks a caller holds (2025-11-25 tasks §Resource Management: receivers SHOULD enforce limits on
 * concurrent tasks per requestor). A task is kept up to TASK_TTL_MS after its last change, so what a caller holds
 * is counted in windows of TASK_TTL_MS: the tasks it made in the current window and the previous one. That count
 * never misses a task still kept (one made before the previous window is older than TASK_TTL_MS), so a caller
 * never holds more than its bound; a task stops counting between one and two TASK_TTL_MS after it was made.
 *
 * Each window has two counters: requests for a task, counted and read with the other counts in one atomic store
 * round trip (types.ts `enter`), and requests refused (one `leave`). A refused request counts itself refused again, so a client that
 * keeps asking past the bound does not push its own window further out.
 *
 * Whom a task counts against is its caller's class (caller.ts Caller.taskQuota), not its session, which costs nothing
 * to open: a principal is held to TASK_MAX_PER_CALLER whatever session it uses; every caller without a principal
 * shares one pool (TASK_MAX_ANONYMOUS) on both wires, and one holding a session the server issued is held to
 * TASK_MAX_PER_CALLER within it. Past a bound a legacy call is refused and a 2026-07-28 call answers in the response,
 * as for a client without tasks.
 */

import { storeKeys, type TaskQuota } from '../server/caller.js';
import type { Store } from '../store/types.js';
import { createCountedWarning, type CountedWarning } from '../warn.js';
import type { TaskSettings } from './settings.js';

export interface TaskSlot {
  /** True when the caller may have one more task. */
  granted: boolean;
  /** The bound that applies, and the variable that sets it. */
  max: number;
  variable: 'TASK_MAX_PER_CALLER' | 'TASK_MAX_ANONYMOUS';
  /** The window the task was counted in (its index key, for the legacy tasks/list). */
  window: number;
}

/** The window of `now`: windows are TASK_TTL_MS long. */
export const taskWindow = (settings: Pick<TaskSettings, 'ttlMs'>, now = Date.now()) => Math.floor(now / settings.ttlMs);

type Variable = TaskSlot['variable'];
type Counter = { key: string; ttlMs: number };

/** Counts one more task against every bound of `quota`, or refuses it past one (and then holds nothing). */
export async function takeTaskSlot(store: Store, quota: TaskQuota, settings: TaskSettings, now = Date.now()): Promise<TaskSlot> {
  const window = taskWindow(settings, now);
  // The counts that are a caller's only bound (a principal's, the pool's) are security records: a caller flooding its
  // own share of the store must not evict them and so start counting again. A session's count within the pool is
  // its own to lose: the pool still bounds it.
  const security = store.withBudget('security');
  const bounds: Array<{ owner: string; max: number; variable: Variable; counts: Store }> = [
    ...(quota.caller !== undefined ? [{ owner: quota.caller, max: settings.maxPerCaller, variable: 'TASK_MAX_PER_CALLER' as const, counts: quota.anonymous ? store : security }] : []),
    // The pool's owner is '', which no caller key is.
    ...(quota.anonymous ? [{ owner: '', max: settings.maxAnonymous, variable: 'TASK_MAX_ANONYMOUS' as const, counts: security }] : []),
  ];
  const taken: Array<{ counts: Store; refused: Counter }> = [];
  for (const { owner, max, variable, counts } of bounds) {
    const { refused, held } = await count(counts, owner, settings, window);
    taken.push({ counts, refused });
    if (held > max) {
      // A refused request is counted refused under every bound it was counted under, so it holds nothing anywhere.
      await Promise.all(taken.map((t) => t.counts.leave({ count: t.refused })));
      refusals().note(`${variable}=${max}`);
      return { granted: false, max, variable, window };
    }
  }
  const { max, variable } = bounds[0]!;
  return { granted: true, max, variable, window };
}

/** Takes one more request for `owner` in `window`, and how many tasks it then holds, this one included. */
async function count(store: Store, owner: string, settings: TaskSettings, window: number): Promise<{ refused: Counter; held: number }> {
  // Both counters of a window live until the next window is over, when nothing reads them any more.
  const ttlMs = 2 * settings.ttlMs;
  const refused = storeKeys.taskRefused(owner, window);
  const previous = [storeKeys.taskCount(owner, window - 1), storeKeys.taskRefused(owner, window - 1)];
  const { count = 0, values = [] } = await store.enter({ count: { key: storeKeys.taskCount(owner, window), ttlMs }, read: [refused, ...previous] });
  return { refused: { key: refused, ttlMs }, held: count - Number(values[0] ?? 0) + Number(values[1] ?? 0) - Number(values[2] ?? 0) };
}

let warning: CountedWarning | undefined;

/** One operator line per minute at most, however many callers hit their bound. */
function refusals(): CountedWarning {
  return (warning ??= createCountedWarning((bound, count) =>
    `${count} call${count === 1 ? '' : 's'} could not become a task: the caller already held the most tasks allowed (${bound}); ` +
    'legacy clients were refused, 2026-07-28 clients answered in the response.'));
}
