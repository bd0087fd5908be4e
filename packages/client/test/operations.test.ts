import { expect } from "chai";
import {
  ChainError,
  ContractType,
  ErrorCode,
  OperationType,
  codecs,
  toHex,
  transactionHash,
  type Operation,
} from "@chainsim/protocol";
import { KEY_VECTORS, TRANSACTION_VECTOR } from "@chainsim/protocol/testing";
import {
  createAccount,
  createContract,
  log,
  payCoin,
  setMetadata,
  setPrivilege,
  setSignerWeight,
  setThreshold,
} from "../src/index.js";

const [A, B, C] = KEY_VECTORS.map((v) => v.address);

/** The operation survives the wire unchanged (value form → proto → value form). */
function roundTrip(operation: Operation): Operation {
  return codecs.Operation.decode(codecs.Operation.encode(operation));
}

describe("operation builders", () => {
  it("reproduce the compat.md §3 transaction blob and hash", () => {
    const blob = codecs.Transaction.encode({
      source_address: A,
      nonce: 1n,
      fee_limit: 1_000_000n,
      gas_price: 100n,
      operations: [payCoin(B, 12345n)],
    });
    expect(toHex(blob)).to.equal(TRANSACTION_VECTOR.blob);
    expect(toHex(transactionHash(blob))).to.equal(TRANSACTION_VECTOR.hash);
  });

  it("payCoin: int64 as bigint from any integer form, optional input and source", () => {
    const op = payCoin(B, "9223372036854775807", { input: '{"method":"x"}', source: C });
    expect(op).to.deep.equal({
      type: OperationType.PAY_COIN,
      source_address: C,
      pay_coin: { dest_address: B, amount: 9223372036854775807n, input: '{"method":"x"}' },
    });
    expect(roundTrip(op)).to.deep.equal(op);
    expect(payCoin(B, 5)).to.deep.equal({ type: 7, pay_coin: { dest_address: B, amount: 5n } });
  });

  it("createAccount: default privilege lets the new key sign alone; metadatas carried", () => {
    const op = createAccount(B, { initBalance: 10n ** 8n, metadatas: [{ key: "k", value: "v", version: 1 }] });
    expect(op).to.deep.equal({
      type: OperationType.CREATE_ACCOUNT,
      create_account: {
        dest_address: B,
        priv: { master_weight: 1n, thresholds: { tx_threshold: 1n } },
        metadatas: [{ key: "k", value: "v", version: 1n }],
        init_balance: 100_000_000n,
      },
    });
    expect(roundTrip(op)).to.deep.equal(op);
    const custom = createAccount(B, { initBalance: 1, priv: { master_weight: 2n } });
    expect(custom.create_account?.priv).to.deep.equal({ master_weight: 2n });
  });

  it("createContract: payload, type, init input; no master weight; address left to the node", () => {
    const op = createContract('"use strict"; function init(){} function main(){}', { initInput: "{}", initBalance: 0 });
    expect(op).to.deep.equal({
      type: OperationType.CREATE_ACCOUNT,
      create_account: {
        contract: { type: ContractType.JAVASCRIPT, payload: '"use strict"; function init(){} function main(){}' },
        priv: { thresholds: { tx_threshold: 1n } },
        init_balance: 0n,
        init_input: "{}",
      },
    });
    expect(roundTrip(op).create_account).to.deep.equal({
      contract: { payload: '"use strict"; function init(){} function main(){}' },
      priv: { thresholds: { tx_threshold: 1n } },
      init_input: "{}",
    });
    expect(createContract("AGFzbQ==", { type: ContractType.WASM, dest: C }).create_account).to.include({ dest_address: C });
  });

  it("setMetadata: version and delete flag only when given", () => {
    expect(setMetadata("k", "v")).to.deep.equal({ type: OperationType.SET_METADATA, set_metadata: { key: "k", value: "v" } });
    const op = setMetadata("k", "", { version: 3, deleteFlag: true });
    expect(op.set_metadata).to.deep.equal({ key: "k", value: "", version: 3n, delete_flag: true });
    expect(roundTrip(op)).to.deep.equal({ type: 4, set_metadata: { key: "k", version: 3n, delete_flag: true } });
  });

  it("setPrivilege: weights and threshold as decimal strings, omitted = unchanged", () => {
    const op = setPrivilege({
      masterWeight: 0,
      signers: [{ address: B, weight: 2 }],
      txThreshold: 3n,
      typeThresholds: [{ type: OperationType.PAY_COIN, threshold: "4" }],
    });
    expect(op).to.deep.equal({
      type: OperationType.SET_PRIVILEGE,
      set_privilege: {
        master_weight: "0",
        signers: [{ address: B, weight: 2n }],
        tx_threshold: "3",
        type_thresholds: [{ type: OperationType.PAY_COIN, threshold: 4n }],
      },
    });
    expect(roundTrip(op)).to.deep.equal(op);
    expect(setPrivilege({ signers: [{ address: C, weight: 1 }] }).set_privilege).to.not.have.any.keys("master_weight", "tx_threshold");
  });

  it("setSignerWeight, setThreshold and log", () => {
    const weights = setSignerWeight({ masterWeight: 5, signers: [{ address: B, weight: 1 }], source: C });
    expect(weights).to.deep.equal({
      type: OperationType.SET_SIGNER_WEIGHT,
      source_address: C,
      set_signer_weight: { master_weight: 5n, signers: [{ address: B, weight: 1n }] },
    });
    const threshold = setThreshold({ txThreshold: 2, typeThresholds: [{ type: OperationType.CREATE_ACCOUNT, threshold: 3 }] });
    expect(threshold).to.deep.equal({
      type: OperationType.SET_THRESHOLD,
      set_threshold: { tx_threshold: 2n, type_thresholds: [{ type: 1, threshold: 3n }] },
    });
    const entry = log("topic", ["a", "b"]);
    expect(entry).to.deep.equal({ type: OperationType.LOG, log: { topic: "topic", datas: ["a", "b"] } });
    for (const op of [weights, threshold, entry]) expect(roundTrip(op)).to.deep.equal(op);
  });

  it("fail before signing: bad address → 94, bad integer → 2", () => {
    expect(() => payCoin("did:bid:nope", 1)).to.throw(ChainError).with.property("code", ErrorCode.INVALID_ADDRESS);
    expect(() => payCoin(B, 1, { source: "x" })).to.throw(ChainError).with.property("code", ErrorCode.INVALID_ADDRESS);
    expect(() => setPrivilege({ signers: [{ address: "x", weight: 1 }] })).to.throw(ChainError);
    expect(() => payCoin(B, 1.5)).to.throw(ChainError).with.property("code", ErrorCode.INVALID_PARAMETER);
    expect(() => payCoin(B, 2n ** 63n)).to.throw(ChainError).with.property("code", ErrorCode.INVALID_PARAMETER);
  });
});
