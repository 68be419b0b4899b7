/**
 * The callers of the memory store by the bytes they hold, heaviest first: when the store as a whole is full, the
 * room comes from the caller holding the most (ledger.ts). A binary max-heap that knows each member's place, so a
 * caller whose holding changes moves in O(log n); a scan of every caller on each write would let a flood of
 * callers make every write slow.
 */

export interface Weighed {
  readonly bytes: number;
  /** Where the member sits in the heap; -1 when it is not in one. Kept by the heap. */
  place: number;
}

export class Heaviest<T extends Weighed> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The heaviest member, or the heaviest but `skip` (the next heaviest is one of the top's two children). */
  top(skip?: T): T | undefined {
    const [first, left, right] = this.#items;
    if (first !== skip) return first;
    if (!left || !right) return left;
    return left.bytes >= right.bytes ? left : right;
  }

  /** Adds `item`, or moves it to its place after its weight changed. */
  update(item: T): void {
    if (item.place < 0) {
      item.place = this.#items.length;
      this.#items.push(item);
    }
    this.#down(this.#up(item.place));
  }

  remove(item: T): void {
    const at = item.place;
    if (at < 0) return;
    item.place = -1;
    const last = this.#items.pop()!;
    if (last === item) return;
    this.#items[at] = last;
    last.place = at;
    this.#down(this.#up(at));
  }

  #up(at: number): number {
    const items = this.#items;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (items[parent]!.bytes >= items[at]!.bytes) break;
      this.#swap(at, parent);
      at = parent;
    }
    return at;
  }

  #down(at: number): void {
    const items = this.#items;
    for (;;) {
      const [left, right] = [2 * at + 1, 2 * at + 2];
      let heaviest = at;
      if (left < items.length && items[left]!.bytes > items[heaviest]!.bytes) heaviest = left;
      if (right < items.length && items[right]!.bytes > items[heaviest]!.bytes) heaviest = right;
      if (heaviest === at) return;
      this.#swap(at, heaviest);
      at = heaviest;
    }
  }

  #swap(a: number, b: number): void {
    const items = this.#items;
    [items[a], items[b]] = [items[b]!, items[a]!];
    items[a]!.place = a;
    items[b]!.place = b;
  }
}
