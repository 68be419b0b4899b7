/** Test support: the request log's lines (docs/observability.md "The request log") as the server writes them to stdout. */

import { vi } from 'vitest';

/** Spies on stdout until the spy is restored; the returned array fills with each request line written, parsed. */
export function captureRequestLines(): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    try {
      const parsed = JSON.parse(String(chunk));
      if (parsed.msg === 'mcp request') lines.push(parsed);
    } catch { /* not a request line */ }
    return true;
  });
  return lines;
}
