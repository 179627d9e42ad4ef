/** The retrieval metrics `npm run eval:scifact` reports, on hand-computed cases. */
import { describe, expect, it } from "vitest";
import { mean, ndcgAt, percentile, recallAt, score } from "../../eval/lib/metrics";

const judged = new Map([
  ["a", 1],
  ["b", 1],
  ["c", 0],
]);

describe("ndcgAt and recallAt", () => {
  it("a perfect ranking scores 1", () => {
    expect(ndcgAt(["a", "b", "c"], judged, 10)).toBe(1);
    expect(recallAt(["a", "b"], judged, 10)).toBe(1);
  });

  it("discounts a relevant document by log2 of its rank + 1", () => {
    // dcg = 1/log2(3) + 1/log2(4); idcg = 1 + 1/log2(3)
    const expected = (1 / Math.log2(3) + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3));
    expect(ndcgAt(["c", "a", "b"], judged, 10)).toBeCloseTo(expected, 12);
  });

  it("counts only the first k, and nothing without relevant judgements", () => {
    expect(recallAt(["c", "a", "b"], judged, 2)).toBe(0.5);
    expect(ndcgAt(["c"], judged, 1)).toBe(0);
    expect(recallAt(["a"], new Map([["a", 0]]), 10)).toBe(0);
    expect(ndcgAt(["a"], new Map(), 10)).toBe(0);
  });
});

describe("mean, percentile and score", () => {
  it("mean and nearest-rank percentile, 0 for nothing", () => {
    expect(mean([1, 2, 3, 6])).toBe(3);
    expect(mean([])).toBe(0);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 95)).toBe(5);
    expect(percentile([5, 1, 4, 2, 3], 0)).toBe(1);
    expect(percentile([], 50)).toBe(0);
  });

  it("averages over every judged query; one with no ranking scores 0", () => {
    const qrels = new Map([
      ["q1", new Map([["a", 1]])],
      ["q2", new Map([["b", 1]])],
    ]);
    expect(score(new Map([["q1", ["a"]]]), qrels)).toEqual({ ndcg10: 0.5, recall100: 0.5 });
  });
});
