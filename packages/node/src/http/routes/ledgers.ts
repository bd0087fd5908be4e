import type { Express } from "express";
import { ChainError, ErrorCode, codecs, toInt64, type Json } from "@chainsim/protocol";
import type { NodeContext } from "../../context.js";
import { query, sendJson } from "../app.js";
import { headerJson } from "../views.js";

export function mountLedgerRoutes(app: Express, ctx: NodeContext): void {
  app.get("/getLedger", async (req, res) => {
    const seqText = query(req, "seq");
    const seq = seqText === undefined || seqText === "" ? ctx.ledgers.lastHeader.seq! : toInt64(seqText, "seq");
    if (seq < 1n) throw new ChainError(ErrorCode.INVALID_PARAMETER, "seq starts at 1");
    const ledger = await ctx.ledgers.ledger(seq);
    if (!ledger) return sendJson(res, { error_code: ErrorCode.NOT_EXIST, error_desc: `ledger ${seq} does not exist`, result: null });
    const result: { [key: string]: Json } = {
      header: headerJson(ledger.header!),
      ledger_length: codecs.LedgerHeader.encode(ledger.header!).length,
    };
    if (query(req, "with_validator") === "true") result.validators = ledger.validators ?? [];
    if (query(req, "with_leader") === "true") result.leader = ledger.value?.proposer ?? "";
    if (query(req, "with_fee") === "true") result.fees = { base_reserve: ledger.fees?.base_reserve ?? 0n, gas_price: ledger.fees?.gas_price ?? 0n };
    sendJson(res, { error_code: 0, result });
  });
}
