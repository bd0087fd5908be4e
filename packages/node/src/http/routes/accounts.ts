import type { Express } from "express";
import { ChainError, ErrorCode, checkAddress } from "@chainsim/protocol";
import type { NodeContext } from "../../context.js";
import { query, sendJson } from "../app.js";
import { accountJson, assetJson, metadataJson } from "../views.js";
import { ASSETS, METADATA } from "../../state/entries.js";

const notFound = (what: string) => ({ error_code: ErrorCode.NOT_EXIST, error_desc: `${what} does not exist`, result: null });

export function mountAccountRoutes(app: Express, ctx: NodeContext): void {
  const address = (value: string | undefined) => checkAddress(value ?? "", "address", ErrorCode.INVALID_PARAMETER);

  /** The account's metadata: one key's entry (or none) when `key` is given, else all of it. */
  const metadataOf = async (addr: string, key: string | undefined) =>
    (key === undefined ? await ctx.ledgers.accounts.allEntries(METADATA, addr) : [await ctx.ledgers.accounts.entry(METADATA, addr, key)]).filter(
      (kp) => kp !== undefined,
    );

  app.get("/getAccountBase", async (req, res) => {
    const addr = address(query(req, "address"));
    const account = await ctx.ledgers.accounts.account(addr);
    sendJson(res, account ? { error_code: 0, result: accountJson(account) } : notFound(`account ${addr}`));
  });

  const metadataKey = (value: string | undefined) => {
    if (value === "") throw new ChainError(ErrorCode.INVALID_PARAMETER, "key must not be empty");
    return value;
  };

  app.get("/getAccount", async (req, res) => {
    const addr = address(query(req, "address"));
    const key = metadataKey(query(req, "key"));
    const account = await ctx.ledgers.accounts.account(addr);
    if (!account) return sendJson(res, notFound(`account ${addr}`));
    const entries = (await metadataOf(addr, key)).map(metadataJson);
    const assets = (await ctx.ledgers.accounts.allEntries(ASSETS, addr)).map(assetJson);
    sendJson(res, { error_code: 0, result: { ...accountJson(account), assets: assets.length ? assets : null, metadatas: entries.length ? entries : null } });
  });

  app.get("/getAccountMetaData", async (req, res) => {
    const addr = address(query(req, "address"));
    const key = metadataKey(query(req, "key"));
    if (!(await ctx.ledgers.accounts.account(addr))) return sendJson(res, notFound(`account ${addr}`));
    const found = await metadataOf(addr, key);
    if (found.length === 0) return sendJson(res, notFound(key === undefined ? `metadata of ${addr}` : `metadata ${key} of ${addr}`));
    sendJson(res, { error_code: 0, result: Object.fromEntries(found.map((kp) => [kp.key ?? "", metadataJson(kp)])) });
  });
}
