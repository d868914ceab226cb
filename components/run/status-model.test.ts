/**
 * The run view's words (docs/channels.md "Run states"), from the same fold as the channel's run
 * card and /runs: the header (header-status.ts), the run node and the task nodes of the graph at
 * any replay position (graph-model.ts `frameAt`), for the person reading. While pm-1's report
 * waits on an admin's approval, an admin reads "Waiting on you" and a member "Waiting on an
 * admin" (never "Running"); a cancelled run reads "Cancelled by Lee Park" with 0 of 1 task done;
 * a declined one "Not done".
 */
import { describe, expect, it } from "vitest";
import type { Decider } from "@/lib/approvers";
import { foldRun, RunTimeline, type RunGraphState } from "@/lib/fold/run-graph";
import { runStatusLabel, type RunStatusFacts } from "@/lib/fold/run-status";
import { TASK_STATES } from "@/lib/fold/task-state";
import { ADMIN, approvalRun, cancelledRun, DANA, declinedRun, nameOf, questionRun, LEE } from "@/test/fixtures/status-runs";
import { computeStructure, frameAt, newFrameCache, RUN_NODE_ID, StableLayout, type FrameInput, type RunNodeData, type TaskNodeData } from "./graph-model";
import { headerStatus, inProgress } from "./header-status";
import { stateStyle, TASK_STATE_STYLE } from "./task-style";

const input = (person: Decider | null, serverStatus: RunStatusFacts | null = null): FrameInput => ({
  title: "Analyze last quarter's sales trends",
  selected: null,
  onToggle: () => {},
  onSelect: () => {},
  onOpenMore: () => {},
  usage: new Map(),
  person,
  nameOf,
  serverStatus,
});

/** The run node's and the one task node's words in the frame at `state`, for `person`. */
function frameWords(head: RunGraphState, state: RunGraphState, person: Decider | null, serverStatus: RunStatusFacts | null = null) {
  const structure = computeStructure(head, { collapsed: new Map(), moreOpen: new Set() });
  const layout = new StableLayout();
  layout.update(structure);
  const { nodes } = frameAt(structure, layout, state, input(person, serverStatus), newFrameCache());
  const run = nodes.find((n) => n.id === RUN_NODE_ID)!.data as RunNodeData;
  const task = nodes.find((n) => n.type === "task")?.data as TaskNodeData | undefined;
  return { run: run.label, progress: run.progress.text, fraction: run.progress.fraction, task: task?.label };
}

describe("the run node and task nodes at any replay position", () => {
  const events = approvalRun();
  const timeline = new RunTimeline(2);
  timeline.append(events);

  it("waits on an approval: 'Waiting on you' for an admin, 'Waiting on an admin' for a member", () => {
    // Event 3 is the approval request; event 4 the call it holds; event 5 the grant.
    for (const n of [3, 4]) {
      expect(frameWords(timeline.head, timeline.seek(n), ADMIN)).toMatchObject({ run: "Waiting on you", task: "Waiting on you", progress: "0 of 1 task done" });
      expect(frameWords(timeline.head, timeline.seek(n), DANA)).toMatchObject({ run: "Waiting on an admin", task: "Waiting on an admin" });
    }
    expect(frameWords(timeline.head, timeline.seek(2), DANA)).toMatchObject({ run: "Running", task: "Running" });
    expect(frameWords(timeline.head, timeline.seek(5), DANA)).toMatchObject({ run: "Running", task: "Running" });
    expect(frameWords(timeline.head, timeline.head, DANA)).toMatchObject({ run: "Succeeded", task: "Succeeded", progress: "1 of 1 task done", fraction: 1 });
  });

  it("waits on Dana's answer: 'Waiting on you' for her, 'Waiting on Dana' for Lee", () => {
    const q = foldRun(questionRun());
    const at = foldRun(questionRun(), 3);
    expect(frameWords(q, at, DANA)).toMatchObject({ run: "Waiting on you", task: "Waiting on you" });
    expect(frameWords(q, at, LEE)).toMatchObject({ run: "Waiting on Dana", task: "Waiting on Dana" });
  });

  it("reads 'Cancelled by Lee Park', 0 of 1 task done, the bar empty", () => {
    const end = foldRun(cancelledRun());
    expect(frameWords(end, end, DANA)).toEqual({ run: "Cancelled by Lee Park", task: "Cancelled by Lee Park", progress: "0 of 1 task done", fraction: 0 });
  });

  it("reads 'Not done' when pm-1 declined, 0 of 1 task done", () => {
    const end = foldRun(declinedRun());
    expect(frameWords(end, end, DANA)).toEqual({ run: "Not done", task: "Not done", progress: "0 of 1 task done", fraction: 0 });
  });

  it("reads the server's status on a state without events (the task projection of a large run)", () => {
    const waiting: RunStatusFacts = { status: "waiting", waiting_on: [{ kind: "approval", task_id: "task_pm", approval_id: "apr_1", agent_id: "agent:pm-1", approvers: ["role:admin"], requesters: [], forbid_self_approval: false }], cancelled_by: null };
    const empty = foldRun([]);
    const head = foldRun(approvalRun());
    expect(frameWords(head, empty, ADMIN, waiting).run).toBe("Waiting on you");
  });
});

describe("the run view's header", () => {
  const summary: RunStatusFacts = { status: "running", waiting_on: [], cancelled_by: null };

  it("reads the run's events at their newest once loaded, the server's summary before", () => {
    const waiting = foldRun(approvalRun(), 3);
    expect(runStatusLabel(headerStatus(summary, waiting)!, DANA, nameOf)).toBe("Waiting on an admin");
    expect(runStatusLabel(headerStatus(summary, waiting)!, ADMIN, nameOf)).toBe("Waiting on you");
    expect(runStatusLabel(headerStatus(summary, null)!, ADMIN, nameOf)).toBe("Running");
    expect(headerStatus(undefined, null)).toBeNull();
    expect(runStatusLabel(headerStatus(summary, foldRun(cancelledRun()))!, ADMIN, nameOf)).toBe("Cancelled by Lee Park");
    expect(runStatusLabel(headerStatus(summary, foldRun(declinedRun()))!, ADMIN, nameOf)).toBe("Not done");
  });

  it("offers Cancel run while the run runs or waits on someone", () => {
    expect(inProgress(headerStatus(summary, foldRun(approvalRun(), 3))!.status)).toBe(true);
    expect(inProgress(headerStatus(summary, foldRun(cancelledRun()))!.status)).toBe(false);
  });
});

describe("task states on the run page", () => {
  it("are named in people's words, never by the raw state name", () => {
    for (const s of TASK_STATES) expect(TASK_STATE_STYLE[s].label).not.toMatch(/_|^[a-z]/);
    expect(stateStyle("input_required").label).toBe("Pending");
  });
});
