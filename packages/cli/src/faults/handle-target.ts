import { setTimeout as sleep } from "node:timers/promises";
import type { NetworkHandle } from "../launcher.js";
import type { FaultTarget } from "./apply-fault.js";

/** Faults on a network this process launched (a scenario): process actions through the NetworkHandle. */
export function handleTarget(handle: NetworkHandle): FaultTarget {
  return {
    nodes: handle.nodes,
    kill: async (name) => void (await handle.stopNode(name, { signal: "SIGKILL" })),
    start: async (name) => void (await handle.startNode(name)),
    restart: async (name, { wipe }) => void (await handle.restart(name, { wipe })),
    pause: async (name, paused) => handle.pauseNode(name, paused),
    startTwin: async (name) => void (await handle.startTwin(name)),
    stopTwin: (name) => handle.stopTwin(name),
    waitForExit: async (name, timeoutMs) => {
      const node = handle.nodes.find((n) => n.name === name)!;
      const timer = new AbortController();
      const exited = await Promise.race([node.process.exited.then(() => true), sleep(timeoutMs, false, { signal: timer.signal }).catch(() => false)]);
      timer.abort();
      return exited;
    },
  };
}
