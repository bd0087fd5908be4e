// Setting the maximum of a module's memory in its binary (docs/wasm-abi.md §7): binaryen's API can only
// replace a memory together with its data, so the one field is rewritten in the emitted bytes.

const MEMORY_SECTION = 5;
const HEADER_BYTES = 8;

function readLeb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error("truncated LEB128");
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7;
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/**
 * `bytes` with its one memory's maximum set to at most `maxPages` pages. The module is one binaryen
 * emitted: a defined memory, initial size already checked to be at most `maxPages`.
 */
export function limitMemory(bytes: Uint8Array, maxPages: number): Uint8Array {
  let at = HEADER_BYTES;
  while (at < bytes.length) {
    const id = bytes[at]!;
    const [size, payload] = readLeb(bytes, at + 1);
    if (id !== MEMORY_SECTION) {
      at = payload + size;
      continue;
    }
    const [count, limits] = readLeb(bytes, payload);
    if (count !== 1) throw new Error(`expected one memory, found ${count}`);
    const flags = bytes[limits]!;
    const [initial, afterInitial] = readLeb(bytes, limits + 1);
    const [declared, end] = flags & 1 ? readLeb(bytes, afterInitial) : [Infinity, afterInitial];
    if (end !== payload + size) throw new Error("unexpected bytes in the memory section");
    const body = [...leb(1), 1, ...leb(initial), ...leb(Math.min(declared, maxPages))];
    return new Uint8Array(Buffer.concat([bytes.subarray(0, at), Uint8Array.from([MEMORY_SECTION, ...leb(body.length), ...body]), bytes.subarray(end)]));
  }
  throw new Error("the module has no memory section");
}

const DATA_SECTION = 11;

/** What instantiating the module costs beyond its code: its initial memory and the bytes of its data section. */
export function instantiationSize(bytes: Uint8Array): { initialPages: number; dataBytes: number } {
  let initialPages = 0;
  let dataBytes = 0;
  for (let at = HEADER_BYTES; at < bytes.length; ) {
    const id = bytes[at]!;
    const [size, payload] = readLeb(bytes, at + 1);
    if (id === MEMORY_SECTION) initialPages = readLeb(bytes, payload + 2)[0];
    if (id === DATA_SECTION) dataBytes = size;
    at = payload + size;
  }
  return { initialPages, dataBytes };
}
