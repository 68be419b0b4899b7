/**
 * Text joined chunk by chunk, as a streamed reply is. In V8 `text += chunk` makes a rope: a 32-byte node per join,
 * pointing at the text before and at the chunk's own string, so a reply of 500 five-character chunks holds ~15.6 KB
 * for its 2,500 characters (docs/performance.md "Streamed calls in flight, issue 48"). Reading a character in the
 * middle makes V8 flatten it into one string, ~1 byte a character here. Flattened once every max(32, length / 512)
 * chunks, the rope's tail stays short and the copying costs at most ~512 bytes a chunk, whatever the length.
 */

export class JoinedText {
  #text = '';
  #pieces = 0;

  get text(): string {
    return this.#text;
  }

  get length(): number {
    return this.#text.length;
  }

  add(chunk: string): void {
    const text = (this.#text += chunk);
    if (++this.#pieces < Math.max(32, text.length >> 9)) return;
    this.#pieces = 0;
    // Any read of a rope's character flattens it in place; the value read is not needed.
    text.charCodeAt(text.length >> 1);
  }

  /** Keeps the last `chars` characters. */
  keepLast(chars: number): void {
    if (this.#text.length > chars) this.#text = this.#text.slice(-chars);
  }

  clear(): void {
    this.#text = '';
    this.#pieces = 0;
  }
}
