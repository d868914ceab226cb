/**
 * The run DAG's structure and layout (components/run/graph-model.ts): it updates live as events
 * arrive with no jump of nodes already placed, and subtrees collapse beyond a size:
 * - growing a run event by event, a node keeps the position it was first given, and no two
 *   nodes on the canvas overlap;
 * - a parent with many children shows some and a "+N more" node; big subtrees below the roots
 *   start collapsed; the frame at event N holds only what exists after events 1..N.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import { RunTimeline, graphFromTasks } from "@/lib/fold/run-graph";
import type { TaskView } from "@/lib/fold/task-state";
import {
  CHILD_CAP,
  CHILD_SHOWN,
  computeStructure,
  frameAt,
  newFrameCache,
  RUN_NODE_ID,
  SIZE,
  StableLayout,
  type ExpandState,
  type Structure,
} from "@/components/run/graph-model";

const events = fs
  .readFileSync(path.resolve(import.meta.dirname, "fixtures/runs/sales-run.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as StoredEvent);

const input = { title: "run", selected: null, onToggle: () => {}, onSelect: () => {}, onOpenMore: () => {}, usage: new Map<string, string>(), person: null, nameOf: (id: string) => id, serverStatus: null };

function noOverlap(s: Structure, layout: StableLayout) {
  const boxes = s.nodes.map((n) => ({ id: n.id, ...layout.get(n.id)!, ...SIZE[n.kind] }));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
    }
  }
}

function task(id: string, parent: string | null, i: number): TaskView {
  const ts = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  return {
    task_id: id,
    run_id: "run_x",
    thread_id: "thr_x",
    parent_task_id: parent,
    state: "succeeded",
    started_at: ts,
    assignee: "agent:a",
    requester: null,
    title: id,
    attempts: 1,
    created_at: ts,
    updated_at: ts,
    ended_at: ts,
    error: null,
    open_questions: [],
    open_approvals: [],
    last_seq: 0,
    imported: false,
  };
}

describe("the run DAG", () => {
  it("never moves a placed node while the run grows, and never overlaps nodes", () => {
    const timeline = new RunTimeline();
    const layout = new StableLayout();
    const expand: ExpandState = { collapsed: new Map(), moreOpen: new Set() };
    const seen = new Map<string, { x: number; y: number }>();
    for (const ev of events) {
      timeline.append([ev]);
      const s = computeStructure(timeline.head, expand);
      layout.update(s);
      for (const n of s.nodes) {
        const p = layout.get(n.id)!;
        expect(p, n.id).toBeDefined();
        if (seen.has(n.id)) expect(p, `${n.id} moved at seq ${ev.seq}`).toEqual(seen.get(n.id));
        else seen.set(n.id, { ...p });
      }
      noOverlap(s, layout);
    }
    // The run node, pm-1's task, the analyst's under it and the review under that.
    expect(seen.size).toBe(4);
    const ys = [...seen.values()].map((p) => p.y);
    expect(ys).toEqual([...ys].sort((a, b) => a - b));
  });

  it("shows the state after events 1..N: only the tasks that exist then, with their state then", () => {
    const timeline = new RunTimeline();
    timeline.append(events);
    const layout = new StableLayout();
    const s = computeStructure(timeline.head, { collapsed: new Map(), moreOpen: new Set() });
    layout.update(s);
    const handoff = events.findIndex((e) => e.type === "task.request" && e.to.some((t) => t.agent_id === "agent:analyst-1"));
    const frame = frameAt(s, layout, timeline.seek(handoff + 1), input, newFrameCache());
    const tasks = frame.nodes.filter((n) => n.type === "task").map((n) => (n.data as { node: { task: TaskView } }).node.task);
    expect(tasks.map((t) => [t.assignee, t.state])).toEqual([
      ["agent:pm-1", "running"],
      ["agent:analyst-1", "pending"],
    ]);
    expect(frame.edges.map((e) => e.data?.kind)).toEqual(["request", "delegation"]);
    expect(frame.nodes.find((n) => n.id === RUN_NODE_ID)?.data).toMatchObject({ count: handoff + 1, seq: events[handoff]!.seq });
  });

  it("shows some of many children with a '+N more' node, and starts big subtrees collapsed", () => {
    // root → 40 parts → 60 steps each (2,441 tasks).
    const tasks: TaskView[] = [task("root", null, 0)];
    for (let p = 0; p < 40; p++) tasks.push(task(`p${p}`, "root", tasks.length));
    for (let p = 0; p < 40; p++) for (let k = 0; k < 60; k++) tasks.push(task(`p${p}s${k}`, `p${p}`, tasks.length));
    const head = graphFromTasks(tasks);
    const s = computeStructure(head, { collapsed: new Map(), moreOpen: new Set() });
    expect(40).toBeGreaterThan(CHILD_CAP);
    const parts = s.nodes.filter((n) => n.parent === "root");
    expect(parts.filter((n) => n.kind === "task")).toHaveLength(CHILD_SHOWN);
    expect(parts.filter((n) => n.kind === "more")).toHaveLength(1);
    // Each part shown has 60 steps: collapsed, standing for its steps.
    for (const n of parts.filter((x) => x.kind === "task")) expect(n.collapsed).toBe(true);
    expect(s.nodes.length).toBe(2 + CHILD_SHOWN + 1);
    const layout = new StableLayout();
    layout.update(s);
    const frame = frameAt(s, layout, head, input, newFrameCache());
    expect(frame.nodes.find((n) => n.type === "more")?.data).toMatchObject({ hidden: (40 - CHILD_SHOWN) * 61 });
    expect(frame.nodes.find((n) => n.id === "p0")?.data).toMatchObject({ collapsed: true, hidden: 60 });

    // Opening the "+N more" node and one part: all parts, and that part's steps (capped again).
    const opened = computeStructure(head, { collapsed: new Map([...s.decided, ["p0", false]]), moreOpen: new Set(["root"]) });
    expect(opened.nodes.filter((n) => n.parent === "root" && n.kind === "task")).toHaveLength(40);
    expect(opened.nodes.filter((n) => n.parent === "p0" && n.kind === "task")).toHaveLength(CHILD_SHOWN);
    const before = new Map(s.nodes.map((n) => [n.id, { ...layout.get(n.id)! }]));
    layout.update(opened);
    for (const [id, p] of before) if (opened.byId.has(id)) expect(layout.get(id), id).toEqual(p);
    noOverlap(opened, layout);
  });
});
