/** The ACP delta algorithm on every example of seed 003 ("Delta Algorithm"). */
import { describe, expect, it } from "vitest";
import { applyDelta, joinDeltas, type AcpDelta } from "./delta";

describe("ACP delta algorithm (seed 003)", () => {
  it.each([
    [1, 2, 3],
    ["hello", "there", "hellothere"],
    [{ a: 1, b: "hello" }, { b: "world", c: 2 }, { a: 1, b: "helloworld", c: 2 }],
    ["value", null, "value"],
    [null, "value", "value"],
    [["a"], [], ["a"]],
    [[], ["a"], ["a"]],
    [[], [null, "general", "Kenobi"], ["general", "Kenobi"]],
    [["hello", "there"], ["general", "Kenobi"], ["hello", "theregeneral", "Kenobi"]],
    [["hello", "there"], [null, "general", "Kenobi"], ["hello", "there", "general", "Kenobi"]],
    [[], ["general", "Kenobi"], ["general", "Kenobi"]],
    [null, [null, "general"], ["general"]],
  ] as const)("%j + %j → %j", (output, delta, expected) => {
    expect(applyDelta(output as never, delta as never)).toEqual(expected);
  });

  it("refuses to combine different types, saying where", () => {
    expect(() => applyDelta(1, ["hello"])).toThrow("output: a number cannot be combined with a array");
    expect(() => applyDelta({ a: { b: 1 } }, { a: { b: "x" } })).toThrow("output.a.b: a number cannot be combined with a string");
  });

  it("joins a stream of deltas into the final output, without changing the deltas", () => {
    const first = { text: "Howd", steps: [] as string[] };
    const deltas: AcpDelta[] = [first, { text: "y back" }, { steps: [null, "pm-1: started"] }, { steps: [null, "pm-1: done"], text: " at ya!" }];
    expect(joinDeltas(deltas)).toEqual({ text: "Howdy back at ya!", steps: ["pm-1: started", "pm-1: done"] });
    expect(first).toEqual({ text: "Howd", steps: [] });
    expect(joinDeltas([])).toBeUndefined();
  });
});
