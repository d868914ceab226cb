/**
 * No wait without an end (docs/lifecycle.md "Questions nobody can answer"): the default workflow
 * template, as the workflows page offers it for "New workflow" (analyse with
 * skill:data-analysis, then review with skill:review), run on "Analyze last quarter's sales
 * trends" on the built-in model with the example's playbooks.
 *
 * analyst-1 does the analysis step; its overseer qa-1 reviews it inside that step (the analyst
 * answers qa-1's oversight inquiry there). Then the review step goes to qa-1, which sends another
 * oversight inquiry to analyst-1, whose task has ended by then. The inquiry must not wait
 * forever: the orchestrator answers it on analyst-1's behalf with the result analyst-1 gave, qa-1
 * carries on, and the workflow ends with the review. Also: a question to an agent that never
 * answers counts against the asker's task deadline, unlike a question to people.
 */
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEvent, makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { WorkflowDetail } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import { Deadlines } from "@/server/lifecycle/deadlines";
import { ORCHESTRATOR } from "@/server/router/router";
import * as workflowsRoute from "@/app/api/workflows/route";
import * as runsRoute from "@/app/api/workflows/[name]/runs/route";
import { WORKFLOW_TEMPLATE } from "@/components/workflows/workflow-editor";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";
import { requestAs, runRow, taskRow, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let dana: TestPrincipal;

const post = <T>(handler: (req: Request, ctx: never) => Promise<Response>, url: string, body: unknown, params?: Record<string, string>) =>
  handler(requestAs(dana, `http://test${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), (params ? { params: Promise.resolve(params) } : undefined) as never).then(async (res) => ({ status: res.status, body: (await res.json()) as T }));

beforeAll(async () => {
  // Routing counts an agent's open tasks by id in the database the test files share: room enough
  // that this run never waits for other files' analyst-1 and qa-1.
  rt = await startAgents(scratchWorkspace(undefined, undefined, { max_concurrency: 50 }).dir);
  dana = await testPerson(rt, "member", "Dana");
});
afterAll(async () => {
  await rt?.stop();
});

const rootEnding = (run_id: string) => (evs: StoredEvent[]) => evs.find((e) => e.run_id === run_id && !e.parent_task_id && e.from.agent_id === "agent:workflow" && (e.type === "task.result" || e.type === "task.error"));

describe("no wait without an end", () => {
  it("runs the default workflow template to its review: an inquiry to analyst-1 after its task ended is answered on its behalf", async () => {
    // The template as "New workflow" offers it; only its name is this test's own (the database is shared).
    const name = `sales-check-${newId("task").slice(-6).toLowerCase()}`;
    const saved = await post<{ workflow: WorkflowDetail }>(workflowsRoute.POST, "/api/workflows", { source: WORKFLOW_TEMPLATE.replace("workflow: sales-check", `workflow: ${name}`) });
    expect(saved.status).toBe(201);
    expect(saved.body.workflow.uncovered).toEqual([]);

    const started = await post<{ run_id: string; thread_id: string }>(runsRoute.POST, `/api/workflows/${name}/runs`, { text: "Analyze last quarter's sales trends" }, { name });
    expect(started.status).toBe(201);
    const { run_id, thread_id } = started.body;
    const end = await waitFor(rt, thread_id, "the workflow's result", rootEnding(run_id), 150_000);
    expect(end).toMatchObject({ type: "task.result", payload_type: "review.feedback.v1" });
    expect((await runRow(rt, run_id)).state).toBe("succeeded");

    const events = (await threadEvents(rt, thread_id)).filter((e) => e.run_id === run_id);
    const steps = events.filter((e) => isEvent(e, "task.request") && e.meta?.workflow_step && e.to[0]?.agent_id !== ORCHESTRATOR.agent_id);
    expect(steps.map((e) => [e.meta?.workflow_step, e.to[0]?.agent_id])).toEqual([
      ["analyse", "agent:analyst-1"],
      ["review", "agent:qa-1"],
    ]);
    const analyse = steps[0]!;
    const review = steps[1]!;
    // The review step's inquiry to analyst-1, sent after analyst-1's step had ended …
    const analysed = events.find((e) => e.task_id === analyse.task_id && isEvent(e, "task.result"))!;
    const inquiry = events.find((e) => isEvent(e, "chat.message") && e.task_id === review.task_id && e.payload.inquiry === true)!;
    expect(inquiry).toMatchObject({ from: { agent_id: "agent:qa-1" }, to: [{ agent_id: "agent:analyst-1" }] });
    expect(inquiry.seq).toBeGreaterThan(analysed.seq);
    // … is answered on its behalf, in qa-1's task, with the result analyst-1 gave.
    const answers = events.filter((e) => isEvent(e, "chat.message") && e.payload.reply_to === inquiry.id);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ from: { agent_id: ORCHESTRATOR.agent_id }, to: [{ agent_id: "agent:qa-1" }], task_id: review.task_id, meta: { answered_for: "agent:analyst-1", unanswerable: "task_ended", addressee_task_id: analyse.task_id } });
    const text = String(answers[0]!.payload.text);
    expect(text).toMatch(/^Analyst Agent has finished its task ".+" and cannot answer; its result was: /);
    expect(text).toContain(String(analysed.payload.summary).slice(0, 60));
    expect((await taskRow(rt, review.task_id)).state).toBe("succeeded");
    // Every event of the agents' work names the node that did it (CLUTCH_NODE_NAME; here the default, host and process).
    // (A reviewed result the orchestrator releases for its agent, `meta.approved_by`, is the orchestrator's.)
    const work = events.filter((e) => (e.from.agent_id === "agent:analyst-1" || e.from.agent_id === "agent:qa-1") && !e.meta?.approved_by);
    expect(new Set(work.map((e) => e.meta?.node))).toEqual(new Set([`${os.hostname()}:${process.pid}`]));
  }, 180_000);

  it("times out a task whose question to an agent is never answered, but not one that waits for a person, nor a workflow's root", async () => {
    const thread_id = rt.channels[0]!.thread_id;
    const at = (task_id: string) => ({ thread_id, run_id: newId("run"), task_id, parent_task_id: null });
    const EXT = { agent_id: `agent:silent-${newId("task").slice(-6).toLowerCase()}`, role: "worker" };
    const asks = async (to: string) => {
      const task_id = newId("task");
      const where = at(task_id);
      await rt.store.append([
        makeMessage({ type: "task.request", ...where, from: { agent_id: "user:dana", role: "human" }, to: [EXT], payload: { title: `Ask ${to}` } }),
        makeMessage({ type: "task.accept", ...where, from: EXT, to: [{ agent_id: "user:dana" }], payload: { agent_id: EXT.agent_id } }),
        makeMessage({ type: "chat.message", ...where, from: EXT, to: [{ agent_id: to, role: to.startsWith("user") ? "human" : "worker" }], payload: { text: "Which quarter?", expects_reply: true } }),
      ]);
      return task_id;
    };
    const toAgent = await asks("agent:nobody-answers");
    const toPerson = await asks("user:dana");
    // A workflow's root: its time is its steps', each under its own limit.
    const WORKFLOW = { agent_id: "agent:workflow", role: "orchestrator" };
    const root = newId("task");
    const rootAt = at(root);
    await rt.store.append([
      makeMessage({ type: "task.request", ...rootAt, from: { agent_id: "user:dana", role: "human" }, to: [WORKFLOW], payload: { title: "A long workflow" } }),
      makeMessage({ type: "task.accept", ...rootAt, from: WORKFLOW, to: [{ agent_id: "user:dana" }], payload: { agent_id: WORKFLOW.agent_id } }),
    ]);
    expect((await taskRow(rt, toAgent)).state).toBe("waiting_input");
    expect((await taskRow(rt, toPerson)).state).toBe("waiting_input");

    // An hour on: past task_timeout_sec (1800 s); the run limit is left out, so only the task limit can end them.
    const later = Date.now() + 3_600_000;
    const deadlines = new Deadlines({
      store: rt.store,
      registry: rt.registry,
      router: null,
      settings: { ...rt.workspace!.lifecycle, run_timeout_sec: null },
      inScope: async (t) => t === thread_id,
      now: () => later,
    });
    await deadlines.sweep();
    const timedOut = await taskRow(rt, toAgent);
    expect(timedOut.state).toBe("timed_out");
    expect(timedOut.error).toMatchObject({ code: "TIMED_OUT", message: expect.stringContaining("lifecycle.task_timeout_sec") });
    expect((await taskRow(rt, toPerson)).state).toBe("waiting_input");
    expect((await taskRow(rt, root)).state).toBe("running");
  });
});
