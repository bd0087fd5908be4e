import { expect } from "chai";
import { NewestMap, keyOfLargest } from "../src/collections.js";

describe("collections", () => {
  it("keyOfLargest: the key of the largest value, the first of equals, undefined for none", () => {
    expect(keyOfLargest(new Map([["a", 1], ["b", 3], ["c", 3], ["d", 2]]))).to.equal("b");
    expect(keyOfLargest([[1n, 5n] as const, [2n, 7n] as const])).to.equal(2n);
    expect(keyOfLargest(new Map<string, number>())).to.equal(undefined);
  });

  it("NewestMap keeps its newest keys: adding past the capacity drops the oldest; replacing a value keeps its place", () => {
    const map = new NewestMap<string, number>(3);
    for (const key of ["a", "b", "c"]) map.set(key, 0);
    map.set("a", 1);
    map.set("d", 2);
    expect([...map.entries()]).to.deep.equal([["b", 0], ["c", 0], ["d", 2]]);
    map.clear();
    expect(map.size).to.equal(0);
  });
});
