import { parseJson, stringifyJson, type Json } from "@chainsim/protocol";
import type {
  AccountJson,
  ApiResponse,
  CallContractRequest,
  CallContractResult,
  ConsensusInfoResponse,
  HelloResponse,
  LedgerQuery,
  LedgerResult,
  ModulesStatusResponse,
  SignatureResult,
  SubmitItem,
  SubmitTransactionResponse,
  TestTransactionRequest,
  TestTransactionResult,
  TransactionBlobResult,
  TransactionCacheResult,
  TransactionHistoryQuery,
  TransactionHistoryResult,
  TransactionJson,
  TxCacheSizeResponse,
} from "./api-types.js";
import { NetworkError } from "./errors.js";

type QueryValue = string | number | bigint | boolean | undefined;

export interface ClientOptions {
  /** Per-request limit; a request still unanswered after it fails with NetworkError. Default 30 s. */
  timeoutMs?: number;
}

/**
 * One method per node route. Methods return the parsed body as is (check it with `expectOk`); they throw
 * only NetworkError. Bodies are read and written with protocol's lossless JSON: int64 values beyond 2^53
 * arrive as bigint, and bigint values are sent as plain JSON numbers.
 */
export class ChainsimClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;

  /** `baseUrl`: e.g. "http://127.0.0.1:19333"; a path prefix is kept. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  hello(): Promise<HelloResponse> {
    return this.get("/hello");
  }

  getModulesStatus(): Promise<ModulesStatusResponse> {
    return this.get("/getModulesStatus");
  }

  getConsensusInfo(): Promise<ConsensusInfoResponse> {
    return this.get("/getConsensusInfo");
  }

  /** error_code 4 when the account does not exist. */
  getAccountBase(address: string): Promise<ApiResponse<AccountJson>> {
    return this.get("/getAccountBase", { address });
  }

  /** With `key`, `metadatas` holds only that entry. */
  getAccount(address: string, options: { key?: string } = {}): Promise<ApiResponse<AccountJson>> {
    return this.get("/getAccount", { address, key: options.key });
  }

  getAccountMetaData(address: string, key?: string): Promise<ApiResponse<Json>> {
    return this.get("/getAccountMetaData", { address, key });
  }

  /** The node serializes the transaction (error_code 2 when it is malformed). */
  getTransactionBlob(transaction: TransactionJson): Promise<ApiResponse<TransactionBlobResult>> {
    return this.post("/getTransactionBlob", transaction);
  }

  /** Sends a private key to the node: for tests only; sign offline otherwise. */
  getSignature(privateKey: string, blobHex: string): Promise<ApiResponse<SignatureResult>> {
    return this.post("/getSignature", { private_key: privateKey, transaction_blob: blobHex });
  }

  /** One result per item, in order; each item has its own error_code. */
  submitTransaction(items: readonly SubmitItem[]): Promise<SubmitTransactionResponse> {
    return this.post("/submitTransaction", { items });
  }

  /** error_code 4 (and an empty list) when nothing matches. */
  getTransactionHistory(query: TransactionHistoryQuery = {}): Promise<ApiResponse<TransactionHistoryResult>> {
    return this.get("/getTransactionHistory", {
      hash: query.hash,
      ledger_seq: query.ledger_seq,
      start: query.start,
      limit: query.limit,
    });
  }

  /** Transactions waiting in the pool, all or the one with `hash`. */
  getTransactionCache(hash?: string): Promise<ApiResponse<TransactionCacheResult>> {
    return this.get("/getTransactionCache", { hash });
  }

  getTxCacheSize(): Promise<TxCacheSizeResponse> {
    return this.get("/getTxCacheSize");
  }

  getLedger(query: LedgerQuery = {}): Promise<ApiResponse<LedgerResult>> {
    return this.get("/getLedger", { ...query });
  }

  /** Runs a transaction in a sandbox without committing it: a fee estimate. */
  testTransaction(body: TestTransactionRequest): Promise<ApiResponse<TestTransactionResult>> {
    return this.post("/testTransaction", body);
  }

  /** Read-only contract call (opt_type 2 = query); no transaction is created. */
  callContract(body: CallContractRequest): Promise<ApiResponse<CallContractResult>> {
    return this.post("/callContract", body);
  }

  private get<T>(path: string, query: Record<string, QueryValue> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) params.set(name, String(value));
    }
    const search = params.toString();
    return this.request(this.baseUrl + path + (search ? `?${search}` : ""), { method: "GET" });
  }

  private post<T>(path: string, body: unknown): Promise<T> {
    return this.request(this.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stringifyJson(body),
    });
  }

  private async request<T>(url: string, init: RequestInit): Promise<T> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (error) {
      throw new NetworkError(url, `request failed: ${(error as Error).message}`, undefined, { cause: error });
    }
    if (!response.ok) throw new NetworkError(url, `HTTP ${response.status} ${response.statusText}`.trim(), response.status);
    try {
      return parseJson(text) as T;
    } catch (error) {
      throw new NetworkError(url, "the answer is not JSON", undefined, { cause: error });
    }
  }
}
