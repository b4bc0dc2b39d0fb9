/**
 * Buffers cut from one large buffer after another (as Buffer.allocUnsafe cuts small ones from its 8 kB pool), for
 * what the gRPC face makes per call and lets go soon after: an encoded answer, a connection's output. Each as its
 * own ArrayBuffer costs an allocation and counts as external memory, which had V8 collect garbage about as often as
 * the face answered (some 70 µs per list call of 200 groups). A slab lives while any buffer cut from it does.
 */
const SLAB = 1 << 20;
let slab = Buffer.allocUnsafeSlow(0);
let used = 0;

/** `size` bytes, uninitialized, owned by the caller. */
export function fromSlab(size: number): Buffer {
  if (size > SLAB / 4) return Buffer.allocUnsafeSlow(size);
  if (used + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB);
    used = 0;
  }
  const bytes = slab.subarray(used, used + size);
  // The next one starts 8-aligned, as typed views of it may want.
  used = (used + size + 7) & ~7;
  return bytes;
}
