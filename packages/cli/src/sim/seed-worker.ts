// A worker process of `chainsim sim --jobs N` (sim-runs.ts): runs the seeds it is sent, one after another,
// and sends back each result (without its trace). A run is a pure function of its seed, so which process
// runs it changes nothing.
import { simulate, type SimulationOptions } from "@chainsim/sim";

interface Work {
  options: Omit<SimulationOptions, "seed">;
  seeds: number[];
}

process.once("message", async ({ options, seeds }: Work) => {
  for (const seed of seeds) {
    const started = performance.now();
    const result = await simulate({ ...options, seed });
    await new Promise<void>((resolve, reject) => process.send!({ result: { ...result, trace: undefined }, ms: performance.now() - started }, (error: Error | null) => (error ? reject(error) : resolve())));
  }
  process.disconnect();
});
