/** Opaque list cursors (server/utilities/pagination): an offset the client cannot read or forge usefully. */

import { INVALID_PARAMS, McpError } from '../protocol/errors.js';

const PREFIX = 'o:';

function encodeCursor(offset: number): string {
  return btoa(PREFIX + offset).replace(/=+$/, '');
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  try {
    const text = typeof cursor === 'string' ? atob(cursor) : '';
    const offset = Number(text.slice(PREFIX.length));
    if (text.startsWith(PREFIX) && Number.isInteger(offset) && offset >= 0) return offset;
  } catch { /* fall through to the error below */ }
  throw new McpError(INVALID_PARAMS, 'Invalid pagination cursor.');
}

/** One page of `items` from `cursor`, with `nextCursor` when more remain. */
export function paginate<T>(items: T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  const offset = decodeCursor(cursor);
  if (offset > items.length) throw new McpError(INVALID_PARAMS, 'Invalid pagination cursor.');
  const end = offset + pageSize;
  return end < items.length
    ? { page: items.slice(offset, end), nextCursor: encodeCursor(end) }
    : { page: items.slice(offset) };
}
