/**
 * A pure function of one header value, remembered for the last value it was given: a client sends the same Host,
 * Accept and Content-Type on every request, and reading them again cost a warm request a few percent of its
 * work (docs/performance.md). One value is kept, so what is remembered is bounded whatever clients send.
 */
export function rememberLast<T>(read: (value: string | null) => T): (value: string | null) => T {
  let last: { value: string | null; result: T } | undefined;
  return (value) => {
    if (last === undefined || last.value !== value) last = { value, result: read(value) };
    return last.result;
  };
}
