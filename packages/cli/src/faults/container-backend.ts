import { CliError } from "../errors.js";
import type { ComposeNetwork } from "../containers/compose-network.js";
import type { FaultTargetNode } from "./apply-fault.js";
import type { NodeState, StatefulTarget } from "./node-state.js";

/**
 * Faults on validators run by a compose project, through the container engine (docs/faults.md,
 * "Containers"): kill + start, restart, pause/unpause, and disconnect as leaving the project network.
 * Message faults need nothing here: they go to /debug/faults on the published ports like any node's.
 */
export class ContainerBackend implements StatefulTarget {
  readonly nodes: FaultTargetNode[];

  constructor(private readonly compose: ComposeNetwork) {
    this.nodes = compose.nodes;
  }

  state(name: string): Promise<NodeState> {
    return this.compose.state(name);
  }

  async kill(name: string): Promise<void> {
    await this.engine(["kill", this.compose.container(name)]);
  }

  async start(name: string): Promise<void> {
    await this.engine(["start", this.compose.container(name)]);
    await this.compose.waitUntilServing(name);
  }

  /** restart (SIGTERM, then the engine's grace period); wipe empties the data volume while the container is stopped. */
  async restart(name: string, { wipe }: { wipe: boolean }): Promise<void> {
    const container = this.compose.container(name);
    if (!wipe) {
      await this.engine(["restart", container]);
    } else {
      await this.engine(["stop", container]);
      await this.wipeData(container);
      await this.engine(["start", container]);
    }
    await this.compose.waitUntilServing(name);
  }

  async pause(name: string, paused: boolean): Promise<void> {
    await this.engine([paused ? "pause" : "unpause", this.compose.container(name)]);
  }

  /**
   * Cut at the network level: the container leaves the project network, so its peers, and the published
   * ports, lose it at once. Reconnecting needs --alias SERVICE, or the service name stops resolving.
   */
  async disconnect(name: string, cut: boolean): Promise<void> {
    const container = this.compose.container(name);
    if (cut) await this.engine(["network", "disconnect", this.compose.network, container]);
    else {
      await this.engine(["network", "connect", "--alias", name, this.compose.network, container]);
      if ((await this.state(name)).process === "running") await this.compose.waitUntilServing(name);
    }
  }

  async startTwin(): Promise<void> {
    throw new CliError("twin is not available on a compose network: a twin is a second process with the same key", "Run twins without --compose (the process backend); docs/faults.md");
  }

  async stopTwin(): Promise<void> {}

  /**
   * Empties /data through a throwaway container of the same image that mounts the stopped validator's
   * volumes (the image has node but no shell); the validator rewrites its config.json when it starts.
   */
  private async wipeData(container: string): Promise<void> {
    const image = (await this.engine(["inspect", "--format", "{{.Config.Image}}", container])).trim();
    const script = "const fs=require('fs');for(const e of fs.readdirSync('/data'))fs.rmSync('/data/'+e,{recursive:true,force:true})";
    await this.engine(["run", "--rm", "--volumes-from", container, "--entrypoint", "/usr/bin/node", image, "-e", script]);
  }

  private engine(args: string[]): Promise<string> {
    return this.compose.engine.run(args);
  }
}
