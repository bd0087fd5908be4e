import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** The URL `chainsim dashboard` prints once it listens. */
export function dashboardUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const url = /(http:\/\/\S+)/.exec(line)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`chainsim dashboard exited with code ${code} before printing its URL`)));
  });
}
