import type { Express } from "express";
import {
  ChainError,
  ErrorCode,
  SignedTransaction,
  checkAddress,
  codecs,
  decodePrivateKey,
  fromHex,
  signBlob,
  toHex,
  toInt64,
  type Json,
} from "@chainsim/protocol";
import { NodeEd25519Signer } from "@chainsim/protocol/node-crypto";
import type { NodeContext } from "../../context.js";
import type { LedgerPosition } from "../../execution/contracts/engine.js";
import { queryContract } from "../../execution/contracts/query.js";
import { simulateTransaction } from "../../execution/simulate.js";
import { clientGone, query, sendJson } from "../app.js";
import { pendingJson, recordJson } from "../views.js";

const MAX_PAGE = 1000;

type Body = Record<string, unknown>;

export function mountTransactionRoutes(app: Express, ctx: NodeContext): void {
  const requireDev = (what: string) => {
    if (!ctx.config.dev.private_key_endpoints) {
      throw new ChainError(ErrorCode.ACCESS_DENIED, `${what} sends private keys to the node and is disabled; sign offline, or run a dev network (dev.private_key_endpoints)`);
    }
  };

  /** A transaction_json item signed here with the given private keys (dev networks only). */
  const signOnNode = async (json: unknown, privateKeys: unknown): Promise<SignedTransaction> => {
    requireDev("submitting private_keys");
    if (!Array.isArray(privateKeys) || privateKeys.length === 0) throw new ChainError(ErrorCode.INVALID_PARAMETER, "private_keys should be a non-empty array");
    const blob = codecs.Transaction.encode(codecs.Transaction.fromJson(json, "transaction_json"));
    const signatures = await Promise.all(privateKeys.map((k) => signBlob(new NodeEd25519Signer(decodePrivateKey(String(k))), blob)));
    return SignedTransaction.fromJson(toHex(blob), signatures);
  };

  app.post("/getTransactionBlob", (req, res) => {
    const transaction = codecs.Transaction.fromJson(req.body);
    checkAddress(transaction.source_address ?? "", "source_address", ErrorCode.INVALID_PARAMETER);
    const blob = codecs.Transaction.encode(transaction);
    const signed = new SignedTransaction(blob, []);
    sendJson(res, { error_code: 0, error_desc: "", result: { hash: signed.hashHex, transaction_blob: toHex(blob) } });
  });

  app.post("/getSignature", async (req, res) => {
    requireDev("getSignature");
    const body = req.body as Body;
    const blob = fromHex(String(body.transaction_blob ?? ""), "transaction_blob");
    const signature = await signBlob(new NodeEd25519Signer(decodePrivateKey(String(body.private_key ?? ""))), blob);
    sendJson(res, { error_code: 0, error_desc: "", result: { data: toHex(blob), ...signature } });
  });

  app.post("/submitTransaction", async (req, res) => {
    const items = (req.body as Body).items;
    if (!Array.isArray(items)) throw new ChainError(ErrorCode.INVALID_PARAMETER, "items should be an array");
    const maxItems = ctx.config.limits.submit_items;
    if (items.length > maxItems) throw new ChainError(ErrorCode.INVALID_PARAMETER, `at most ${maxItems} items per request (limits.submit_items)`);
    const results: Json[] = [];
    for (const item of items as Body[]) {
      let hash = "";
      try {
        const tx =
          item?.transaction_blob !== undefined
            ? SignedTransaction.fromJson(item.transaction_blob, item.signatures ?? [])
            : item?.transaction_json !== undefined
              ? await signOnNode(item.transaction_json, item.private_keys)
              : (() => {
                  throw new ChainError(ErrorCode.INVALID_PARAMETER, "an item needs transaction_blob + signatures or transaction_json + private_keys");
                })();
        hash = tx.hashHex;
        await ctx.txs.submit(tx);
        results.push({ error_code: 0, error_desc: "", hash });
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        results.push({ error_code: error.code, error_desc: error.message, hash });
      }
    }
    sendJson(res, { results, success_count: results.filter((r) => (r as { error_code: number }).error_code === 0).length });
  });

  app.get("/getTransactionHistory", async (req, res) => {
    const { start, limit } = page(query(req, "start"), query(req, "limit"));
    const hash = query(req, "hash");
    const seqText = query(req, "ledger_seq");
    let hashes: Uint8Array[];
    let total: bigint;
    if (hash !== undefined) {
      const record = /^[0-9a-fA-F]{64}$/.test(hash) ? await ctx.ledgers.record(hash.toLowerCase()) : undefined;
      if (!record) {
        return sendJson(res, { error_code: ErrorCode.NOT_EXIST, error_desc: `transaction ${hash} is not in any ledger`, result: { total_count: 0, transactions: [] } });
      }
      return sendJson(res, { error_code: 0, result: { total_count: 1, transactions: [recordJson(record)] } });
    } else if (seqText !== undefined) {
      const ledger = await ctx.ledgers.ledger(toInt64(seqText, "ledger_seq"));
      if (!ledger) return sendJson(res, { error_code: ErrorCode.NOT_EXIST, error_desc: `ledger ${seqText} does not exist`, result: { total_count: 0, transactions: [] } });
      total = BigInt(ledger.tx_hashes?.length ?? 0);
      hashes = (ledger.tx_hashes ?? []).slice(start, start + limit);
    } else {
      total = ctx.ledgers.txCount;
      hashes = await latestHashes(ctx, start + limit);
      hashes = hashes.slice(start);
    }
    const records = await Promise.all(hashes.map((h) => ctx.ledgers.record(toHex(h))));
    const transactions = records.filter((r) => r !== undefined).map(recordJson);
    sendJson(res, { error_code: 0, result: { total_count: total, transactions } });
  });

  app.get("/getTransactionCache", (req, res) => {
    const hash = query(req, "hash");
    const entries = hash === undefined ? [...ctx.txs.pool.entries()] : [ctx.txs.pool.get(hash.toLowerCase())].filter((e) => e !== undefined);
    if (hash !== undefined && entries.length === 0) {
      return sendJson(res, { error_code: ErrorCode.NOT_EXIST, error_desc: `transaction ${hash} is not pending`, result: { total_count: 0, transactions: [] } });
    }
    const { start, limit } = page(query(req, "start"), query(req, "limit"));
    const transactions = entries.slice(start, start + limit).map((e) => pendingJson(e.tx, e.incomingTime));
    sendJson(res, { error_code: 0, result: { total_count: entries.length, transactions } });
  });

  app.get("/getTxCacheSize", (_req, res) => {
    sendJson(res, { error_code: 0, queue_size: ctx.txs.pool.size });
  });

  app.post("/testTransaction", async (req, res) => {
    const items = (req.body as Body).items;
    if (!Array.isArray(items) || items.length === 0) throw new ChainError(ErrorCode.INVALID_PARAMETER, "items should be a non-empty array");
    const item = items[0] as Body;
    // null would fail below as an internal error (error 1, outside the API contract: docs/openapi.yaml)
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw new ChainError(ErrorCode.INVALID_PARAMETER, "items[0] should be an object");
    const transaction =
      item.transaction_json !== undefined
        ? codecs.Transaction.fromJson(item.transaction_json, "transaction_json")
        : codecs.Transaction.decode(fromHex(String(item.transaction_blob ?? ""), "transaction_blob"));
    const signatureCount = Number(toInt64(item.signature_number ?? 1, "signature_number"));
    if (signatureCount < 1 || signatureCount > 100) throw new ChainError(ErrorCode.INVALID_PARAMETER, "signature_number should be between 1 and 100");
    const simulation = await ctx.queries.queue.run(
      () => simulateTransaction(ctx.queries, ctx.ledgers.stateView(), ctx.ledgers.params, nextLedger(ctx), transaction, signatureCount),
      clientGone(res),
    );
    sendJson(res, {
      error_code: 0,
      error_desc: "",
      result: {
        hash: simulation.hashHex,
        logs: null,
        query_rets: null,
        stat: null,
        txs: [{ actual_fee: simulation.actualFee, gas: simulation.gas, transaction_env: { transaction: codecs.Transaction.toJson(simulation.transaction) } }],
      },
    });
  });

  app.post("/callContract", async (req, res) => {
    const body = req.body as Body;
    for (const field of ["contract_address", "code", "input", "source_address"]) {
      if (body[field] !== undefined && typeof body[field] !== "string") throw new ChainError(ErrorCode.INVALID_PARAMETER, `${field} should be a string`);
    }
    const texts = body as { contract_address?: string; code?: string; input?: string; source_address?: string };
    // An empty contract_address or code counts as absent.
    const address = texts.contract_address || undefined;
    const code = texts.code || undefined;
    if (address !== undefined) {
      checkAddress(address, "contract_address", ErrorCode.INVALID_PARAMETER);
      const account = await ctx.ledgers.accounts.account(address);
      if (!account) throw new ChainError(ErrorCode.NOT_EXIST, `account ${address} does not exist`);
      if (!account.contract?.payload) throw new ChainError(ErrorCode.CONTRACT_INVALID, `account ${address} has no contract`);
    } else if (code === undefined) {
      throw new ChainError(ErrorCode.INVALID_PARAMETER, "give contract_address, or code with an empty contract_address");
    }
    const optType = Number(toInt64(body.opt_type ?? 2, "opt_type"));
    if (optType !== 2) throw new ChainError(ErrorCode.INVALID_PARAMETER, "opt_type 2 (query) is the only mode of callContract");
    const source = texts.source_address ? checkAddress(texts.source_address, "source_address", ErrorCode.INVALID_PARAMETER) : "";
    const { error, result } = await ctx.queries.queue.run(
      () =>
        queryContract(ctx.queries, ctx.ledgers.stateView(), ctx.ledgers.params, nextLedger(ctx), {
          contractAddress: address,
          code,
          input: texts.input ?? "",
          source,
        }),
      clientGone(res),
    );
    sendJson(res, { error_code: error?.code ?? 0, error_desc: error?.message ?? "", result });
  });
}

/** Where queries and estimates run: as if in the next ledger (contract-runtime.md §1). */
function nextLedger(ctx: NodeContext): LedgerPosition {
  const tip = ctx.ledgers.lastHeader;
  return {
    seq: tip.seq! + 1n,
    closeTime: (tip.close_time ?? 0n) + 1n,
    ledgerHash: async (seq) => (await ctx.ledgers.ledger(seq))?.header?.hash,
  };
}

function page(startText: string | undefined, limitText: string | undefined): { start: number; limit: number } {
  const start = startText === undefined ? 0 : Number(toInt64(startText, "start"));
  const limit = limitText === undefined ? 100 : Number(toInt64(limitText, "limit"));
  if (start < 0 || limit < 1 || limit > MAX_PAGE) throw new ChainError(ErrorCode.INVALID_PARAMETER, `start ≥ 0 and limit in [1, ${MAX_PAGE}]`);
  return { start, limit };
}

/** How far back the latest-transactions listing looks, so a long run of empty ledgers stays cheap. */
const LATEST_SCAN_LEDGERS = 10_000n;

/** The hashes of the newest `count` transactions (within the last LATEST_SCAN_LEDGERS ledgers), newest first. */
async function latestHashes(ctx: NodeContext, count: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const tip = ctx.ledgers.lastHeader.seq!;
  for (let seq = tip; seq >= 1n && seq > tip - LATEST_SCAN_LEDGERS && out.length < count; seq--) {
    const ledger = await ctx.ledgers.ledger(seq);
    out.push(...[...(ledger?.tx_hashes ?? [])].reverse());
  }
  return out.slice(0, count);
}
