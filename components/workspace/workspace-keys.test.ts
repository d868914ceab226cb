import { describe, expect, it } from "vitest";
import { stepChannel } from "./workspace-keys";

const order = ["a", "b", "c", "d"].map((id) => ({ id, unread: id === "b" || id === "d" }));
const unread = (t: { unread: boolean }) => t.unread;

describe("moving between channels", () => {
  it("steps in the sidebar's order and stops at either end", () => {
    expect(stepChannel(order, "b", 1)?.id).toBe("c");
    expect(stepChannel(order, "b", -1)?.id).toBe("a");
    expect(stepChannel(order, "d", 1)).toBeNull();
    expect(stepChannel(order, undefined, 1)?.id).toBe("a");
    expect(stepChannel(order, undefined, -1)?.id).toBe("d");
  });

  it("goes to the next unread channel, wrapping around, never the open one", () => {
    expect(stepChannel(order, "a", 1, unread)?.id).toBe("b");
    expect(stepChannel(order, "b", 1, unread)?.id).toBe("d");
    expect(stepChannel(order, "d", 1, unread)?.id).toBe("b");
    expect(stepChannel(order, "a", -1, unread)?.id).toBe("d");
    expect(stepChannel([{ id: "a", unread: true }], "a", 1, unread)).toBeNull();
  });
});
