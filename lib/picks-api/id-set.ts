/**
 * A set of record ids kept as 64-bit hashes in one open-addressed table (8 bytes a slot, grown at 70 %
 * load: 11 to 23 bytes a record, whatever the ids' length), so a walk of a million records remembers what
 * it has seen in a few tens of megabytes. Two independent 32-bit FNV-1a lanes make the hash (one bit
 * marks a used slot); two different ids of one walk share it only by chance, about 1 in 10^7 for a
 * million records.
 */
export class IdSet {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private count = 0;

  constructor(capacity = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, capacity * 1.5)));
    this.hi = new Uint32Array(size);
    this.lo = new Uint32Array(size);
  }

  get size(): number {
    return this.count;
  }

  has(id: string): boolean {
    const [h, l] = hash(id);
    return this.find(h, l) < 0;
  }

  /** Adds the id; false when it was already there. */
  add(id: string): boolean {
    const [h, l] = hash(id);
    const slot = this.find(h, l);
    if (slot < 0) return false;
    this.hi[slot] = h;
    this.lo[slot] = l;
    this.count += 1;
    if (this.count * 10 > this.hi.length * 7) this.grow();
    return true;
  }

  /** The free slot for (h, l), or -1 when it is already present. A slot is used when its low word is not 0. */
  private find(h: number, l: number): number {
    const mask = this.hi.length - 1;
    for (let slot = (l ^ (h >>> 7)) & mask; ; slot = (slot + 1) & mask) {
      const at = this.lo[slot]!;
      if (at === 0) return slot;
      if (at === l && this.hi[slot] === h) return -1;
    }
  }

  private grow() {
    const { hi, lo } = this;
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    for (let i = 0; i < hi.length; i += 1) {
      if (lo[i] === 0) continue;
      const slot = this.find(hi[i]!, lo[i]!);
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
    }
  }
}

/** Two FNV-1a lanes over the UTF-16 code units, with different offsets and a length mix; the low word is never 0. */
function hash(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < id.length; i += 1) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return [(a ^ id.length) >>> 0, (Math.imul(b, 0x9e3779b1) | 1) >>> 0];
}
