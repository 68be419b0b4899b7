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
 * A caller without an identity (an anonymous 2026-07-28 client) has nothing to count by: anonymous callers share
 * one bound (TASK_MAX_ANONYMOUS). Past it their calls answer in the response, as for a client without tasks.
 */

import { storeKeys } from '../server/caller.js';
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

/** Counts one more task for `owner` ('' for anonymous callers), or refuses it past the bound. */
export async function takeTaskSlot(store: Store, owner: string, settings: TaskSettings, now = Date.now()): Promise<TaskSlot> {
  const anonymous = owner === '';
  const max = anonymous ? settings.maxAnonymous : settings.maxPerCaller;
  const variable = anonymous ? 'TASK_MAX_ANONYMOUS' : 'TASK_MAX_PER_CALLER';
  const window = taskWindow(settings, now);
  // Both counters of a window live until the next window is over, when nothing reads them any more.
  const ttlMs = 2 * settings.ttlMs;
  const refused = storeKeys.taskRefused(owner, window);
  const previous = [storeKeys.taskCount(owner, window - 1), storeKeys.taskRefused(owner, window - 1)];
  const { count = 0, values = [] } = await store.enter({ count: { key: storeKeys.taskCount(owner, window), ttlMs }, read: [refused, ...previous] });
  const held = count - Number(values[0] ?? 0) + Number(values[1] ?? 0) - Number(values[2] ?? 0);
  if (held <= max) return { granted: true, max, variable, window };
  await store.leave({ count: { key: refused, ttlMs } });
  refusals().note(`${variable}=${max}`);
  return { granted: false, max, variable, window };
}

let warning: CountedWarning | undefined;

/** One operator line per minute at most, however many callers hit their bound. */
function refusals(): CountedWarning {
  return (warning ??= createCountedWarning((bound, count) =>
    `${count} call${count === 1 ? '' : 's'} could not become a task: the caller already held the most tasks allowed (${bound}); ` +
    'legacy clients were refused, 2026-07-28 clients answered in the response.'));
}
