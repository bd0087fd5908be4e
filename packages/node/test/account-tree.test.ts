// AccountTree: preview without mutation, apply, and a root that depends on the leaves only.
import { expect } from "chai";
import { sha256, toHex, utf8 } from "@chainsim/protocol";
import { AccountTree } from "../src/state/account-tree.js";
import { makeKey } from "./helpers/chain.js";

const addresses = Array.from({ length: 50 }, (_, i) => makeKey(`tree-${i}`).address);

/** Strings that fall into one bucket (the tree does not check addresses): order inside a bucket matters. */
function sameBucket(count: number): string[] {
  const bucketOf = (a: string) => { const h = sha256(utf8(a)); return ((h[0] << 8) | h[1]) >>> 4; };
  const byBucket = new Map<number, string[]>();
  for (let i = 0; ; i++) {
    const a = `address-${i}`;
    const list = byBucket.get(bucketOf(a)) ?? [];
    list.push(a);
    byBucket.set(bucketOf(a), list);
    if (list.length === count) return list;
  }
}
const leaf = (text: string) => AccountTree.leaf(utf8(text));
const root = (tree: AccountTree) => toHex(tree.preview(new Map()).root);

describe("AccountTree", () => {
  it("hashes a leaf as sha256 of the encoded account", () => {
    expect(toHex(AccountTree.leaf(utf8("abc")))).to.equal(toHex(sha256(utf8("abc"))));
  });

  it("preview does not mutate the tree until apply", () => {
    const tree = new AccountTree();
    const empty = root(tree);
    const updates = new Map(addresses.slice(0, 10).map((a) => [a, leaf(a)]));
    const preview = tree.preview(updates);
    expect(toHex(preview.root)).to.not.equal(empty);
    expect(root(tree)).to.equal(empty);
    expect(tree.size).to.equal(0);
    // A second, different preview does not disturb the first.
    tree.preview(new Map([[addresses[0], leaf("other")]]));
    preview.apply();
    expect(root(tree)).to.equal(toHex(preview.root));
    expect(tree.size).to.equal(10);
  });

  it("gives the same root whatever the insertion order of the updates", () => {
    const entries = addresses.map((a, i) => [a, leaf(`account ${i}`)] as const);
    const forward = new AccountTree().preview(new Map(entries)).root;
    const backward = new AccountTree().preview(new Map([...entries].reverse())).root;
    const shuffled = new AccountTree().preview(new Map([...entries].sort(([a], [b]) => (sha256(utf8(a))[5] - sha256(utf8(b))[5]) || (a < b ? -1 : 1)))).root;
    expect(toHex(backward)).to.equal(toHex(forward));
    expect(toHex(shuffled)).to.equal(toHex(forward));
  });

  it("gives the same root whatever the order of addresses that share a bucket", () => {
    const crowded = sameBucket(4);
    const entries = crowded.map((a, i) => [a, leaf(`account ${i}`)] as const);
    const forward = new AccountTree().preview(new Map(entries)).root;
    const backward = new AccountTree().preview(new Map([...entries].reverse())).root;
    expect(toHex(backward)).to.equal(toHex(forward));
    const twoSteps = new AccountTree();
    twoSteps.preview(new Map(entries.slice(2))).apply();
    twoSteps.preview(new Map(entries.slice(0, 2))).apply();
    expect(root(twoSteps)).to.equal(toHex(forward));
    expect(twoSteps.size).to.equal(4);
  });

  it("gives the same root applied in several batches, in one batch, or loaded at start-up", () => {
    const entries = addresses.map((a, i) => [a, leaf(`account ${i}`)] as const);
    const batches = new AccountTree();
    for (let i = 0; i < entries.length; i += 7) batches.preview(new Map(entries.slice(i, i + 7))).apply();
    const once = new AccountTree();
    once.preview(new Map(entries)).apply();
    const loaded = new AccountTree();
    for (const [a, l] of [...entries].reverse()) loaded.load(a, l);
    loaded.rehashAll();
    expect(root(batches)).to.equal(root(once));
    expect(root(loaded)).to.equal(root(once));
    expect([batches.size, once.size, loaded.size]).to.deep.equal([50, 50, 50]);
  });

  it("changes the root when a leaf changes, and returns to it when the leaf does", () => {
    const tree = new AccountTree();
    tree.preview(new Map(addresses.slice(0, 5).map((a) => [a, leaf(a)]))).apply();
    const before = root(tree);
    tree.preview(new Map([[addresses[2], leaf("changed")]])).apply();
    expect(root(tree)).to.not.equal(before);
    expect(tree.size).to.equal(5, "an updated account is not counted twice");
    tree.preview(new Map([[addresses[2], leaf(addresses[2])]])).apply();
    expect(root(tree)).to.equal(before);
  });

  it("depends on which address holds which leaf", () => {
    const [a, b] = addresses;
    const one = new AccountTree().preview(new Map([[a, leaf("x")], [b, leaf("y")]])).root;
    const swapped = new AccountTree().preview(new Map([[a, leaf("y")], [b, leaf("x")]])).root;
    expect(toHex(one)).to.not.equal(toHex(swapped));
  });
});
