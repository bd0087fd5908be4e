import type { Express } from "express";
import { parseHostPort } from "../../config.js";
import type { NodeContext } from "../../context.js";
import { consensusInfo } from "../../status/consensus-info.js";
import { modulesStatus } from "../../status/modules-status.js";
import { formatTime } from "../../status/time.js";
import { sendJson } from "../app.js";

export const CHAIN_VERSION = "chainsim-0.1.0";

export function mountStatusRoutes(app: Express, ctx: NodeContext): void {
  app.get("/hello", (_req, res) => {
    sendJson(res, {
      chain_version: CHAIN_VERSION,
      current_time: formatTime(Date.now()),
      hash_type: 0,
      ledger_version: ctx.ledgers.lastHeader.version!.toString(),
      license_version: "MIT",
      monitor_version: "1000",
      network_id: ctx.config.genesis.chain_id,
      overlay_version: "1000",
      websocket_address: parseHostPort(ctx.config.wsserver.listen_address).port,
    });
  });
  app.get("/getModulesStatus", async (_req, res) => sendJson(res, await modulesStatus(ctx)));
  app.get("/getConsensusInfo", (_req, res) => sendJson(res, consensusInfo(ctx)));
}
