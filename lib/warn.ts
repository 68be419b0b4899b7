/**
 * Operator warnings for events that can repeat on every request (a bound hit, a limiter that cannot decide):
 * the first occurrence is logged at once, later ones are counted and reported at most once a minute, so a
 * caller who keeps hitting a bound cannot flood the log, and none goes uncounted.
 */

const EVERY_MS = 60_000;

export interface CountedWarning {
  /** Counts one occurrence; `detail` (e.g. the cause) is shown in the next line. */
  note(detail?: string): void;
}

/** `line(detail, count)` is logged as `[agent-mcp] <line>` for the occurrences since the last one logged. */
export function createCountedWarning(line: (detail: string | undefined, count: number) => string): CountedWarning {
  let last = -Infinity;
  let count = 0;
  let detail: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const report = () => {
    timer = undefined;
    if (count === 0) return;
    console.warn(`[agent-mcp] ${line(detail, count)}`);
    last = Date.now();
    count = 0;
  };
  return {
    note(latest) {
      count += 1;
      detail = latest;
      const wait = last + EVERY_MS - Date.now();
      if (wait <= 0) return report();
      // The rest are reported when the minute is up; unref'd, so the count never keeps a process alive.
      timer ??= setTimeout(report, wait);
      (timer as { unref?: () => void }).unref?.();
    },
  };
}
