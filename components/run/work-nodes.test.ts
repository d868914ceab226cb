import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import { workNodes } from "./work-nodes";

const ev = (task_id: string, node?: string) => ({ task_id, meta: node ? { node } : {} }) as unknown as StoredEvent;

describe("workNodes", () => {
  it("names the nodes of the task's events, first seen first, each once", () => {
    const events = [ev("t1"), ev("t1", "node-a:3000"), ev("t2", "node-c:3000"), ev("t1", "node-a:3000"), ev("t1", "node-b:3000")];
    expect(workNodes(events, "t1")).toEqual(["node-a:3000", "node-b:3000"]);
    expect(workNodes(events, "t3")).toEqual([]);
  });
});
