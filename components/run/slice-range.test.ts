/** `sliceRange`: how a long run's events after its first page are cut into slices loaded at once. */
import { describe, expect, it } from "vitest";
import { sliceRange } from "./run-events-store";

/** The seqs a slice list covers (after < seq < before each), in order. */
const covered = (slices: [number, number][]) => slices.flatMap(([after, before]) => Array.from({ length: before - after - 1 }, (_, i) => after + 1 + i));

describe("sliceRange", () => {
  it("covers (after, newest] once, in order, in n slices", () => {
    const slices = sliceRange(5000, 50_000, 4);
    expect(slices).toHaveLength(4);
    const seqs = covered(slices);
    expect(seqs[0]).toBe(5001);
    expect(seqs.at(-1)).toBe(50_000);
    expect(seqs).toHaveLength(45_000);
    expect(new Set(seqs).size).toBe(45_000);
  });

  it("makes fewer slices when the range is narrower than n, and none when it is empty", () => {
    expect(covered(sliceRange(10, 12, 4))).toEqual([11, 12]);
    expect(sliceRange(10, 12, 4)).toHaveLength(2);
    expect(sliceRange(10, 10, 4)).toEqual([]);
  });

  it("never asks for an empty slice (the API refuses before ≤ after + 1)", () => {
    for (const [after, newest] of [[0, 1], [7, 30], [100, 103], [1, 1_000_001]]) {
      for (const [a, b] of sliceRange(after!, newest!, 4)) expect(b).toBeGreaterThan(a + 1);
    }
  });
});
