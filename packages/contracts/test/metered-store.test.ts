// Metered texts on disk (docs/contracts.md §13, "Preparing a contract's code"): exact, checked, bounded.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { MeteredStore } from "../src/metered-store.js";

const BUILD = "build-1";

describe("MeteredStore", () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "chainsim-store-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const files = () => readdirSync(root).flatMap((build) => readdirSync(join(root, build)));

  it("gives back exactly what was stored, lone surrogates included; a read-only store adds nothing", () => {
    const store = new MeteredStore(root, true, BUILD);
    const text = `(function () { "\ud800 \u00e9 \u{1f600}" })`;
    store.put("k1", text);
    expect(store.get("k1")).to.equal(text);
    expect(new MeteredStore(root, false, BUILD).get("k1")).to.equal(text);
    expect(store.get("missing")).to.equal(undefined);
    new MeteredStore(root, false, BUILD).put("k2", "x");
    expect(files()).to.deep.equal(["k1"]);
  });

  it("removes the oldest texts once it holds more than its bound", () => {
    // Each file is a 32-byte digest and 2 bytes a character: 132 bytes for 50 characters.
    const store = new MeteredStore(root, true, BUILD, 300);
    for (const key of ["a", "b", "c"]) store.put(key, key.repeat(50));
    expect(files().sort()).to.deep.equal(["b", "c"]);
    expect(store.get("a")).to.equal(undefined);
    // A store opened on the directory counts what is there, oldest first.
    const reopened = new MeteredStore(root, true, BUILD, 300);
    reopened.put("d", "d".repeat(50));
    expect(files().sort()).to.deep.equal(["c", "d"]);
  });

  it("on opening, removes what a killed writer left half written and the texts of other builds", () => {
    new MeteredStore(root, true, BUILD).put("k", "text");
    const [build] = readdirSync(root);
    writeFileSync(join(root, build!, "k2.123.partial"), "half");
    rmSync(join(root, "old-build"), { recursive: true, force: true });
    writeFileSync(join(root, "old-build"), "stale");
    new MeteredStore(root, true, BUILD);
    expect(readdirSync(root)).to.deep.equal([build]);
    expect(files()).to.deep.equal(["k"]);
  });
});
