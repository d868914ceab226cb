/**
 * Security regressions from the authorization drill (docs/identity.md). Each test failed before
 * its fix:
 *
 * - the person who asked for a run cannot approve its held work when the rule forbids
 *   self-approval, however the run started (a chat message, an A2A call, a fork, a workflow);
 * - revoking a key, disabling an agent, removing a member from a private channel or deactivating
 *   a person ends their open sockets' access at once;
 * - a write names every scope it touches: a run or task of another channel is refused;
 * - display names are the server's;
 * - only an admin changes an agent's signing keys; a keyed agent's heartbeat is signed;
 * - a blocking A2A message/send answers within its bound.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import { runRequester } from "@/lib/fold/run-requester";
import type { Clutch } from "@/server/clutch";
import { a2aApp } from "@/server/adapters/a2a/server";
import * as eventsRoute from "@/app/api/events/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as decisionRoute from "@/app/api/approvals/[approval_id]/decision/route";
import * as forkRoute from "@/app/api/runs/[run_id]/fork/route";
import * as workflowRunsRoute from "@/app/api/workflows/[name]/runs/route";
import { scratchWorkspace, startAgents, waitFor } from "./agents";
import { requestAs, testPerson, type TestPrincipal } from "./helpers";

/** A capability of this file's own, which only this workspace's pm-1 has (the test log is shared). */
const CAP = `skill:drill-${newId("task").slice(-6).toLowerCase()}`;
const POLICY = `
version: 1
rules:
  - id: another-admin-lets-work-start
    match: { kind: dispatch }
    decision: require_approval
    approvers: [role:admin]
    forbid_self_approval: true
    reason: An admin other than the one who asked lets each piece of work start
`;
const WORKFLOW = `workflow: drill-one-step
description: One step, done by pm-1
steps:
  - id: plan
    title: Plan it
    capability: ${CAP}
`;

let rt: Clutch;
let thread_id: string;
let ada: TestPrincipal;
let bo: TestPrincipal;

beforeAll(async () => {
  const ws = scratchWorkspace((m) => {
    (m["pm-1.json"]!.capabilities as { id: string }[]).push({ id: CAP });
  }, POLICY);
  fs.mkdirSync(path.join(ws.dir, "workflows"));
  fs.writeFileSync(path.join(ws.dir, "workflows", "drill-one-step.yaml"), WORKFLOW);
  rt = await startAgents(ws.dir);
  thread_id = rt.channels[0]!.thread_id;
  ada = await testPerson(rt, "admin", "Ada");
  bo = await testPerson(rt, "admin", "Bo");
});
afterAll(async () => {
  await rt?.stop();
});

const params = <T>(p: T) => ({ params: Promise.resolve(p) }) as never;
const postJson = (as: TestPrincipal, url: string, body: unknown) =>
  requestAs(as, `http://localhost:3000${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** The approval.requested of run `run_id` (the dispatch of its first task, held by POLICY). */
const heldIn = (run_id: string) =>
  waitFor(rt, thread_id, `the held dispatch of ${run_id}`, (evs) => evs.find((e) => e.type === "approval.requested" && e.run_id === run_id), 30_000);

const decide = (as: TestPrincipal, approval_id: string) =>
  decisionRoute.POST(postJson(as, `/api/approvals/${approval_id}/decision`, { decision: "approve" }), params({ approval_id }));

/** Asserts the approval names `requester`, that person may not approve it, and another admin may. */
async function onlyAnotherAdminApproves(held: StoredEvent, requester: TestPrincipal) {
  expect(held.payload).toMatchObject({ requester: requester.agent_id, approvers: ["role:admin"], forbid_self_approval: true });
  const approval_id = String(held.payload.approval_id);
  const other = requester === ada ? bo : ada;
  const self = await decide(requester, approval_id);
  expect(self.status).toBe(403);
  expect(await errorOf(self)).toMatchObject({ code: "not_an_approver", message: expect.stringContaining("you asked for this work") });
  expect((await rt.store.queries.approval(approval_id))?.state).toBe("pending");
  const res = await decide(other, approval_id);
  expect(res.status).toBe(200);
}

describe("forbid_self_approval compares with the person who started the run", () => {
  it("a chat message: the admin who asked may not approve; another admin may", async () => {
    const res = await messagesRoute.POST(postJson(ada, `/api/threads/${thread_id}/messages`, { text: "Analyze last quarter's sales trends" }), params({ thread_id }));
    expect(res.status).toBe(201);
    const { event } = (await res.json()) as { event: StoredEvent };
    const root = await waitFor(rt, thread_id, "the run the message opened", (evs) =>
      evs.find((e) => e.type === "task.request" && !e.parent_task_id && (e.payload.input as { message_id?: string } | undefined)?.message_id === event.id),
    );
    expect(root.meta?.requested_by).toBe(ada.agent_id);
    await onlyAnotherAdminApproves(await heldIn(root.run_id), ada);
  });

  it("an A2A call with a person's key: that person is the run's requester", async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on("request", a2aApp(rt, base));
    try {
      const res = await fetch(`${base}/a2a/agents/pm-1`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bo.key}` },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: { message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "Plan the quarterly review" }] }, configuration: { blocking: false } },
        }),
      });
      const body = (await res.json()) as { result?: { metadata: { clutch: { run_id: string } } }; error?: unknown };
      expect(body.error).toBeUndefined();
      await onlyAnotherAdminApproves(await heldIn(body.result!.metadata.clutch.run_id), bo);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("a fork keeps the original requester, whoever forks it", async () => {
    const res = await messagesRoute.POST(postJson(ada, `/api/threads/${thread_id}/messages`, { text: "Summarize the regional margins" }), params({ thread_id }));
    const { event } = (await res.json()) as { event: StoredEvent };
    const root = await waitFor(rt, thread_id, "the run the message opened", (evs) =>
      evs.find((e) => e.type === "task.request" && !e.parent_task_id && (e.payload.input as { message_id?: string } | undefined)?.message_id === event.id),
    );
    await heldIn(root.run_id);
    // Bo forks the run just after its request, before the policy held it.
    const forked = await forkRoute.POST(postJson(bo, `/api/runs/${root.run_id}/fork`, { at_seq: root.seq }), params({ run_id: root.run_id }));
    expect(forked.status).toBe(201);
    const { run } = (await forked.json()) as { run: { run_id: string } };
    await onlyAnotherAdminApproves(await heldIn(run.run_id), ada);
  });

  it("a workflow run: the person who started it", async () => {
    const res = await workflowRunsRoute.POST(postJson(ada, "/api/workflows/drill-one-step/runs", { text: "Plan the offsite", thread_id }), params({ name: "drill-one-step" }));
    expect(res.status).toBe(201);
    const { run_id } = (await res.json()) as { run_id: string };
    await onlyAnotherAdminApproves(await heldIn(run_id), ada);
  });

  it("nobody names someone else as the one who asked (meta.requested_by)", async () => {
    const res = await eventsRoute.POST(
      postJson(
        ada,
        "/api/events",
        makeMessage({ type: "task.request", thread_id, run_id: newId("run"), task_id: newId("task"), from: { agent_id: ada.agent_id, role: "human" }, to: [{ agent_id: "agent:pm-1" }], payload: { title: "Do it" }, meta: { requested_by: bo.agent_id } }),
      ),
    );
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({ code: "from_mismatch", message: expect.stringContaining("meta.requested_by") });
  });

  it("a run's requester is its first person, not one who joins later with a follow-up request", () => {
    const req = (from: string, meta?: Record<string, unknown>, input?: unknown) => ({ type: "task.request" as const, from: { agent_id: from }, parent_task_id: null, meta, payload: { title: "x", ...(input ? { input } : {}) } });
    expect(runRequester([req("agent:orchestrator", { requested_by: "user:a" }), req("user:b")])).toBe("user:a");
    // Runs opened before requested_by existed: the person the orchestrator copied from the message.
    expect(runRequester([req("agent:orchestrator", undefined, { from: { agent_id: "user:a" } })])).toBe("user:a");
    // An agent's A2A run that a person then joined: the first person.
    expect(runRequester([req("agent:caller", { requested_by: "agent:caller" }), req("user:c")])).toBe("user:c");
    expect(runRequester([req("agent:caller")])).toBe("agent:caller");
    expect(runRequester([])).toBeNull();
  });
});
