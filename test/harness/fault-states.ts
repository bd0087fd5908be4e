import { expect } from "chai";
import { BIN_PATH } from "@chainsim/cli";
import { run, tail, type RunResult } from "./podman.js";

/**
 * Every process action of `chainsim fault` on a validator that is down, paused or disconnected
 * (docs/faults.md, "A node that is down, paused or disconnected"), as one table run on either backend.
 * The cases share one network: each puts v1 in its state, acts, checks the exit code and v1's state, and
 * brings v1 back (heal, then start, as far as needed).
 */

export interface Observed {
  process: "running" | "paused" | "down";
  disconnected: boolean;
}

export interface FaultBackend {
  /** "compose": containers (disconnect leaves the network); "processes": `chainsim up` (disconnect is partition rules). */
  kind: "compose" | "processes";
  /** The options that name the network, e.g. ["--data-dir", D] or ["--compose", "--project", P]. */
  networkArgs: string[];
  env?: Record<string, string>;
  /** v1's state as the backend shows it (the engine's inspect, or the process and the peers' rules). */
  observe(): Promise<Observed>;
  /** Waits (bounded) until v1 answers /hello. */
  waitServing(): Promise<void>;
}

const STATES = ["down", "paused", "disconnected"] as const;

const SETUP: Record<(typeof STATES)[number], string[]> = { down: ["kill"], paused: ["pause"], disconnected: ["disconnect"] };
const ACTIONS = ["kill", "start", "restart", "wipe", "pause", "resume", "heal", "partition", "disconnect"] as const;

const R = { process: "running", disconnected: false } as const;
const P = { process: "paused", disconnected: false } as const;
const D = { process: "down", disconnected: false } as const;
const cut = (state: Observed): Observed => ({ ...state, disconnected: true });

/** [exit code, v1's state afterwards] for each action in each state. */
function expected(kind: FaultBackend["kind"]): Record<string, Record<string, [number, Observed]>> {
  const containers = kind === "compose";
  return {
    down: { kill: [0, D], start: [0, R], restart: [0, R], wipe: [0, R], pause: [1, D], resume: [1, D], heal: [0, D], partition: [1, D], disconnect: containers ? [0, cut(D)] : [1, D] },
    paused: { kill: [0, D], start: [0, R], restart: [0, R], wipe: [0, R], pause: [0, P], resume: [0, R], heal: [0, R], partition: [1, P], disconnect: [1, P] },
    disconnected: {
      kill: [0, cut(D)], start: [0, cut(R)], restart: [0, R], wipe: [0, R], pause: [0, cut(P)], resume: [0, cut(R)], heal: [0, R],
      // A container off the network cannot be reached for the rules; a process is cut only by rules, so it answers.
      partition: containers ? [1, cut(R)] : [0, cut(R)], disconnect: [0, cut(R)],
    },
  };
}

const isRunning = (state: Observed) => state.process === "running" && !state.disconnected;

export function chainsimFault(backend: FaultBackend, args: string[]): Promise<RunResult> {
  return run(process.execPath, ["--no-node-snapshot", BIN_PATH, "fault", ...args, ...backend.networkArgs], { timeoutMs: 180_000, env: backend.env });
}

async function must(backend: FaultBackend, args: string[]): Promise<void> {
  const result = await chainsimFault(backend, args);
  if (result.code !== 0) throw new Error(`chainsim fault ${args.join(" ")} exited ${result.code}:\n${tail(result.stderr, 8)}`);
}

/** Defines one mocha test per (state, action) of `states`; `backend` is read when the tests run (after before()). */
export function faultStateTable(backend: () => FaultBackend): void {
  for (const state of STATES) {
    for (const action of ACTIONS) {
      it(`${action} on a ${state} validator`, async function () {
        const b = backend();
        const [code, after] = expected(b.kind)[state][action];
        await must(b, ["v1", ...SETUP[state]]);
        try {
          const result = await chainsimFault(b, ["v1", action, ...(action === "partition" ? ["v2"] : [])]);
          expect(result.code, `exit code; stderr:\n${tail(result.stderr, 8)}`).to.equal(code);
          if (code !== 0) expect(result.stderr, "a refusal says what to do").to.match(/chainsim fault v1 (start|resume|heal)/);
          expect(await b.observe(), `v1 after ${action} (stderr:\n${tail(result.stderr, 8)})`).to.deep.equal(after);
        } finally {
          // Only what is needed: each `chainsim fault` opens the network anew, which is slow on a loaded machine.
          if (!isRunning(await b.observe())) await must(b, ["v1", "heal"]);
          if ((await b.observe()).process === "down") await must(b, ["v1", "start"]);
        }
        expect(await b.observe(), "v1 restored").to.deep.equal(R);
        await b.waitServing();
      });
    }
  }
}
