/**
 * The server's RunSummary and the browser's fold of a run's events say the same
 * (docs/channels.md "Run states"): after every event of the #sales runs of
 * test/fixtures/status-runs.ts (waiting on an admin's approval, on Dana's answer, cancelled by
 * Lee, declined), `GET /api/runs/:id` answers the status, `waiting_on`, `cancelled_by` and the
 * tasks that succeeded that the run view folds from the events up to there
 * (lib/fold/run-graph.ts `runStatusAt`, `progressAt`), so both read "Waiting on an admin",
 * "Cancelled by Lee Park", "Not done" and "0 of 1 task done" alike. On real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { foldRun, progressAt, runStatusAt } from "@/lib/fold/run-graph";
import { runStatusLabel, type WaitingOn } from "@/lib/fold/run-status";
import type { Clutch } from "@/server/clutch";
import { runDetail } from "@/server/events/runs";
import { ADMIN, approvalRun, cancelledRun, DANA, declinedRun, nameOf, questionRun } from "./fixtures/status-runs";
import { testClutch } from "./helpers";

let rt: Clutch;
let thread_id: string;

beforeAll(async () => {
  rt = await testClutch();
  thread_id = (await rt.store.createThread({ name: `status-${newId("thread").slice(-10).toLowerCase()}` }, { agent_id: "user:nobody" })).id;
});
afterAll(async () => {
  await rt?.stop();
});

/** `events` as a run of its own in the test's channel: new run, task, message and approval ids, dated from now. */
function asNewRun(events: readonly StoredEvent[]): ClutchMessage[] {
  const run_id = newId("run");
  const ids = new Map<string, string>();
  const fresh = (old: string, kind: "task" | "message") => ids.get(old) ?? ids.set(old, newId(kind)).get(old)!;
  const t0 = Date.now();
  return events.map(({ seq, ...ev }, i) => {
    void seq;
    const payload: Record<string, unknown> = { ...ev.payload };
    if (typeof payload.reply_to === "string") payload.reply_to = fresh(payload.reply_to, "message");
    if (typeof payload.approval_id === "string") payload.approval_id = `apr_${run_id}`;
    if (ev.type === "approval.requested") payload.expires_at = new Date(t0 + 3_600_000).toISOString();
    return { ...ev, thread_id, run_id, task_id: fresh(ev.task_id, "task"), id: fresh(ev.id, "message"), ts: new Date(t0 + i).toISOString(), payload } as ClutchMessage;
  });
}

describe("RunSummary and the run view's fold", () => {
  const runs = { approvalRun, questionRun, cancelledRun, declinedRun };
  for (const [name, events] of Object.entries(runs)) {
    it(`agree after every event of ${name}`, async () => {
      const all = events();
      for (let n = 1; n <= all.length; n++) {
        const messages = asNewRun(all.slice(0, n));
        await rt.store.append(messages);
        const run = (await runDetail(rt.store.queries, messages[0]!.run_id))!.run;
        const folded = foldRun(all, n);
        const facts = runStatusAt(folded);
        const at = `${name} after event ${n}`;
        expect(run.status, at).toBe(facts.status);
        expect(run.cancelled_by, at).toEqual(facts.cancelled_by);
        // Ids differ (the copy's own); whom it waits on does not.
        const whom = (ws: readonly WaitingOn[]) => ws.map((w) => (w.kind === "answer" ? { kind: w.kind, to: w.to } : { kind: w.kind, approvers: w.approvers, requesters: w.requesters }));
        expect(whom(run.waiting_on), at).toEqual(whom(facts.waiting_on));
        expect({ done: run.task_succeeded, total: run.task_total }, at).toEqual({ done: progressAt(folded).done, total: progressAt(folded).total });
        for (const person of [ADMIN, DANA]) expect(runStatusLabel(run, person, nameOf), at).toBe(runStatusLabel(facts, person, nameOf));
      }
    });
  }

  it("reads the words people see for each", async () => {
    const summaryOf = async (events: StoredEvent[]) => {
      const messages = asNewRun(events);
      await rt.store.append(messages);
      return (await runDetail(rt.store.queries, messages[0]!.run_id))!.run;
    };
    const held = await summaryOf(approvalRun().slice(0, 4));
    expect(runStatusLabel(held, ADMIN, nameOf)).toBe("Waiting on you");
    expect(runStatusLabel(held, DANA, nameOf)).toBe("Waiting on an admin");
    const cancelled = await summaryOf(cancelledRun());
    expect(runStatusLabel(cancelled, DANA, nameOf)).toBe("Cancelled by Lee Park");
    expect(cancelled).toMatchObject({ task_total: 1, task_done: 1, task_succeeded: 0 });
    expect(runStatusLabel(await summaryOf(declinedRun()), DANA, nameOf)).toBe("Not done");
  });
});
