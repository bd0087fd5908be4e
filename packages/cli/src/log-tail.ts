import { open } from "node:fs/promises";

/** The last `lines` lines of a log file, indented for an error message; a note when it cannot be read. */
export async function logTail(file: string, lines = 20): Promise<string> {
  let text: string;
  try {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 16_384); // a tail is enough; logs can grow large
      const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
      text = buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `  (cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error})`;
  }
  const tail = text.trimEnd().split("\n").slice(-lines);
  return tail.length === 1 && tail[0] === "" ? "  (the log is empty)" : tail.map((line) => `  | ${line}`).join("\n");
}
