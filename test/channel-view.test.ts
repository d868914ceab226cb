/**
 * Conversation-first channels (docs/channels.md): what the channel shows and what lives in
 * threads (lib/conversation.ts, components/thread/rows.ts), and the run card's state folded on
 * the server (server/events/runs.ts): questions and approvals that wait, who works on what, the
 * outcome, fork titles. And a person's message: a new request unless it names what it replies to.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type ClutchMessage, type MessageType, type StoredEvent } from "@/lib/protocol";
import { inConversation, isThreadReply } from "@/lib/conversation";
import { buildRows, type Row } from "@/components/thread/rows";
import type { RunSummary } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { threadRuns } from "@/server/events/runs";
import { conversationIds } from "@/server/events/threads";
import { listApprovals } from "@/server/policy/list";
import { forkRun } from "@/server/runs/runs";
import { msg, newThread, testClutch } from "./helpers";

const T = "thr_view";
const RUN = "run_view";
const CONV = conversationIds(T);
const dana = { agent_id: "user:dana", role: "human", display_name: "Dana" } as const;
const pm = { agent_id: "agent:pm-1", role: "worker" } as const;
const analyst = { agent_id: "agent:analyst-1", role: "worker" } as const;

let seq = 0;
function ev(type: MessageType, payload: Record<string, unknown>, extra: Partial<ClutchMessage> = {}): StoredEvent {
  seq++;
  return {
    v: "0.3",
    id: `m${seq}`,
    seq,
    ts: new Date(Date.UTC(2026, 10, 24, 9, 0, seq)).toISOString(),
    thread_id: T,
    run_id: RUN,
    task_id: "task_root",
    parent_task_id: null,
    type,
    from: pm,
    to: [],
    payload,
    ...extra,
  } as StoredEvent;
}

/** One run in #sales as the seed tells it: request, planning, a question, tools, an approval, the report, a reply in its thread. */
function story() {
  seq = 0;
  const request = ev("chat.message", { text: "Analyze last quarter's sales trends" }, { ...CONV, from: dana, run_id: CONV.run_id, task_id: CONV.task_id });
  const routing = ev("routing.decision", { selected: "agent:pm-1", candidates: ["agent:pm-1"], reason: "entry agent", scores: {}, mode: "fixed", rejected: [] }, { from: { agent_id: "agent:orchestrator", role: "orchestrator" } });
  const task = ev("task.request", { title: "Analyze last quarter's sales trends", instructions: "…", input: { message_id: request.id } }, { from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [pm] });
  const accept = ev("task.accept", {});
  const question = ev("chat.message", { text: "Regional breakdowns, customer segments, or overall trend?", expects_reply: true }, { to: [{ agent_id: "user", role: "human" }] });
  // Answered from the channel's composer: sent to the channel too.
  const answer = ev("chat.message", { text: "Regional breakdown", reply_to: question.id, also_in_channel: true }, { from: dana, to: [pm] });
  const call = ev("tool.call", { call_id: "c1", tool: "query_data", server_id: "DataServer", arguments: {} });
  const allow = ev("policy.decision", { subject: { kind: "tool_call", agent: "agent:pm-1", tool: "query_data" }, decision: "allow", rule: "default", reason: "r" });
  const result = ev("tool.result", { call_id: "c1", output: { rows: [] } });
  const between = ev("chat.message", { text: "Can you split by region?" }, { to: [analyst] });
  const approval = ev("approval.requested", {
    approval_id: "apr_1",
    subject: { kind: "tool_call", agent: "agent:pm-1", tool: "reply" },
    summary: "pm-1 will send the people in the channel a message",
    approvers: "any",
    expires_at: "2026-11-24T10:00:00.000Z",
  });
  const report = ev("chat.message", { text: "## Report\nRevenue grew 12.5%" }, { to: [{ agent_id: "user", role: "human" }] });
  const done = ev("task.result", { summary: "Revenue grew 12.5%" });
  const reply = ev("chat.message", { text: "Thanks, sharing this with the team", reply_to: report.id }, { from: dana, to: [] });
  return { request, routing, task, accept, question, answer, call, allow, result, between, approval, report, done, reply };
}

const kinds = (rows: Row[]) =>
  rows.filter((r) => r.kind !== "day").map((r) => (r.kind === "event" ? `${r.event.type}:${r.event.id}` : r.kind === "run" ? `run:${r.run.run_id}` : r.kind));

describe("the channel's conversation", () => {
  it("shows people's and agents' messages to people, approvals and one run card; the machinery and thread replies live in threads", () => {
    const s = story();
    const events = Object.values(s);
    expect(events.filter(inConversation).map((e) => e.id)).toEqual([s.request, s.question, s.answer, s.approval, s.report].map((e) => e.id));
    expect(isThreadReply(s.reply)).toBe(true);
    expect(isThreadReply(s.answer)).toBe(false);

    const run = { run_id: RUN, first_seq: s.routing.seq } as RunSummary;
    const rows = buildRows(events, [run]);
    expect(kinds(rows)).toEqual([
      `chat.message:${s.request.id}`,
      `run:${RUN}`,
      `chat.message:${s.question.id}`,
      `chat.message:${s.answer.id}`,
      `approval.requested:${s.approval.id}`,
      `chat.message:${s.report.id}`,
    ]);
    const report = rows.find((r) => r.kind === "event" && r.event.id === s.report.id) as Extract<Row, { kind: "event" }>;
    expect(report.ctx.replies?.map((m) => m.text)).toEqual(["Thanks, sharing this with the team"]);

    // The channel's toggle: every event inline, still one run card.
    const all = buildRows(events, [run], { view: "all" });
    expect(all.filter((r) => r.kind === "event" || r.kind === "policy-group")).toHaveLength(events.length);
    expect(all.filter((r) => r.kind === "run")).toHaveLength(1);
  });

  it("keeps a thread's replies in the thread: an answer written there, a follow-up and what the agent says in it, unless also sent to the channel", () => {
    const s = story();
    const inThread = ev("chat.message", { text: "Regional breakdown", reply_to: s.question.id }, { from: dana, to: [pm] });
    const follow = ev("chat.message", { text: "Now break it down by customer segment", reply_to: s.report.id }, { from: dana, to: [pm], task_id: "task_follow", meta: { follows: s.report.id } });
    const request = ev("task.request", { title: "Now break it down by customer segment" }, { from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [pm], task_id: "task_follow", meta: { follows: s.report.id } });
    const delegated = ev("task.request", { title: "Segment figures" }, { to: [analyst], task_id: "task_sub", parent_task_id: "task_follow" });
    const answer = ev("chat.message", { text: "By segment: Consumer 51%" }, { to: [{ agent_id: "user", role: "human" }], task_id: "task_follow" });
    const fromSub = ev("chat.message", { text: "Segment table attached" }, { from: analyst, to: [{ agent_id: "user", role: "human" }], task_id: "task_sub" });
    const shared = ev("chat.message", { text: "Sharing with the team", reply_to: answer.id, also_in_channel: true }, { from: dana, to: [pm], task_id: "task_follow2" });
    const events = [...Object.values(s), inThread, follow, request, delegated, answer, fromSub, shared];
    const shown = kinds(buildRows(events, []));
    for (const hidden of [inThread, follow, answer, fromSub]) expect(shown).not.toContain(`chat.message:${hidden.id}`);
    expect(shown).toContain(`chat.message:${shared.id}`);
    expect(shown).toContain(`chat.message:${s.report.id}`);
    // The run's thread shows them all.
    const pane = kinds(buildRows(events, [], { view: "all", steps: true }));
    for (const e of [inThread, follow, answer, fromSub, shared]) expect(pane).toContain(`chat.message:${e.id}`);
  });

  it("reads a run's thread as a conversation: a task's progress notes one after another are one line with a count, model calls go behind Details", () => {
    seq = 0;
    const request = ev("task.request", { title: "Count" }, { from: { agent_id: "agent:orchestrator", role: "orchestrator" }, to: [pm] });
    const usage = ev("model.usage", { model: "clutch-builtin-1", input_tokens: 2200, output_tokens: 44 });
    const notes = [1, 2, 3].map((n) => ev("task.progress", { message: `step ${n} of 3` }));
    const done = ev("task.result", { summary: "3 regions" });
    const rows = buildRows([request, usage, ...notes, done], [], { view: "all", steps: true });
    const progress = rows.filter((r) => r.kind === "event" && r.event.type === "task.progress") as Extract<Row, { kind: "event" }>[];
    expect(progress).toHaveLength(1);
    expect(progress[0]!.event.id).toBe(notes[2]!.id);
    expect(progress[0]!.ctx.updates).toBe(3);
    expect(rows.some((r) => r.kind === "event" && r.event.type === "model.usage")).toBe(false);
    expect(rows.find((r) => r.kind === "details")).toMatchObject({ events: [usage] });
  });

  it("puts an imported run's card at its time among the channel's events, not at the bottom where its copies were appended", () => {
    const s = story();
    const events = Object.values(s);
    const imported = { run_id: "run_imported", first_seq: 999, started_at: s.call.ts, imported: true } as RunSummary;
    const live = { run_id: RUN, first_seq: s.routing.seq, started_at: s.routing.ts } as RunSummary;
    const rows = kinds(buildRows(events, [live, imported]));
    // Started after the question (m5) was said, before the approval was asked: there it goes.
    expect(rows.indexOf("run:run_imported")).toBeGreaterThan(rows.indexOf(`chat.message:${s.question.id}`));
    expect(rows.indexOf("run:run_imported")).toBeLessThan(rows.indexOf(`approval.requested:${s.approval.id}`));
  });

  it("puts the unread divider before the first message newer than what the person had read", () => {
    const s = story();
    const rows = buildRows(Object.values(s), [], { readUpTo: s.answer.seq });
    const at = kinds(rows).indexOf("unread");
    expect(at).toBeGreaterThan(0);
    expect(kinds(rows)[at + 1]).toBe(`approval.requested:${s.approval.id}`);
    expect(kinds(buildRows(Object.values(s), [], { readUpTo: null }))).not.toContain("unread");
  });

  it("never puts the unread divider above the person's own message: what they wrote, and what came before it, was read", () => {
    const s = story();
    const events = Object.values(s).filter((e) => e !== s.reply);
    // Read up to the question; Dana answered after it: the divider goes after her answer, not above it.
    const rows = kinds(buildRows(events, [], { readUpTo: s.question.seq, me: dana.agent_id }));
    expect(rows[rows.indexOf("unread") + 1]).toBe(`approval.requested:${s.approval.id}`);
    // Her own message is the newest: nothing is new.
    const mine = ev("chat.message", { text: "On it" }, { ...CONV, from: dana, run_id: CONV.run_id, task_id: CONV.task_id });
    expect(kinds(buildRows([...events, mine], [], { readUpTo: s.report.seq, me: dana.agent_id }))).not.toContain("unread");
  });

  it("an imported copy stays out of the conversation; in its thread each row names whom it quotes, never summed up as Clutch's steps", () => {
    const lee = { agent_id: "user:lee", role: "human", display_name: "Lee" } as const;
    const quoting = (from: string) => ({ from: lee, meta: { imported: { from: { agent_id: from }, by: lee.agent_id, at: "2026-11-24T09:00:00.000Z", run_id: "run_file" } } });
    const request = ev("task.request", { title: "Count" }, { ...quoting("agent:orchestrator"), to: [pm] });
    const routed = ev("routing.decision", { selected: "agent:pm-1", candidates: ["agent:pm-1"], reason: "r", scores: {} }, quoting("agent:router"));
    const said = ev("chat.message", { text: "Four regions" }, quoting("agent:pm-1"));
    const again = ev("chat.message", { text: "And one more" }, quoting("agent:pm-1"));
    expect([request, routed, said, again].some(inConversation)).toBe(false);
    const rows = buildRows([request, routed, said, again], [], { view: "all", steps: true });
    const events = rows.flatMap((r) => (r.kind === "event" ? [r] : []));
    expect(rows.some((r) => r.kind === "details")).toBe(false);
    expect(events.map((r) => [r.event.id, r.ctx.continued])).toEqual([
      [request.id, false],
      [routed.id, false],
      [said.id, false], // same `from` (Lee) as above, but it quotes another sender
      [again.id, true],
    ]);
  });
});

describe("a run's card and a person's message, on the server", () => {
  let rt: Clutch;
  beforeAll(async () => {
    rt = await testClutch();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** A run of `thread_id` with a root task for pm-1 and a child for analyst-1, both started. */
  async function startRun(thread_id: string) {
    const run_id = newId("run");
    const root = newId("task");
    const child = newId("task");
    const at = { thread_id, run_id };
    await rt.store.append([
      msg("task.request", { title: "Analyze last quarter's sales trends", instructions: "…" }, { ...at, task_id: root, from: dana, to: [pm] }),
      msg("task.accept", {}, { ...at, task_id: root, from: pm }),
      msg("task.request", { title: "Query the sales data", instructions: "…" }, { ...at, task_id: child, parent_task_id: root, from: pm, to: [analyst] }),
      msg("task.accept", {}, { ...at, task_id: child, parent_task_id: root, from: analyst }),
    ]);
    return { run_id, root, child, at };
  }

  it("knows a question to people however far back it was asked, and who is working on what", async () => {
    const thread_id = await newThread(rt, "view");
    const { run_id, root, at } = await startRun(thread_id);
    const question = makeMessage({
      type: "chat.message",
      ...at,
      task_id: root,
      from: pm,
      to: [{ agent_id: "user", role: "human" }],
      payload: { text: "Regional breakdowns, customer segments, or overall trend?", expects_reply: true },
    });
    await rt.store.append(question);
    // 300 newer events push the question far out of the channel's first page.
    await rt.store.append(Array.from({ length: 300 }, (_, i) => msg("task.progress", { message: `step ${i}` }, { ...at, task_id: root, from: pm })));

    const [run] = await threadRuns(rt.store.queries, thread_id);
    expect(run).toMatchObject({ run_id, title: "Analyze last quarter's sales trends", state: "running", outcome: null });
    expect(run!.questions).toEqual([expect.objectContaining({ id: question.id, run_id, task_id: root, text: "Regional breakdowns, customer segments, or overall trend?", from: pm })]);
    expect(run!.active.map((t) => [t.assignee, t.title]).sort()).toEqual([
      ["agent:analyst-1", "Query the sales data"],
      ["agent:pm-1", "Analyze last quarter's sales trends"],
    ]);

    // A plain message while the question is open is a new request, not an answer.
    const plain = await personMessage(rt.store.queries, thread_id, { text: "Also, what about churn?" }, dana);
    expect(plain).toMatchObject({ ...conversationIds(thread_id), to: [] });
    expect(plain.payload.reply_to).toBeUndefined();

    // Naming the question answers it, addressed to the asker, in its run and task.
    const answer = await personMessage(rt.store.queries, thread_id, { text: "Regional breakdown", reply_to: question.id }, dana);
    expect(answer).toMatchObject({ run_id, task_id: root, to: [{ agent_id: "agent:pm-1" }], payload: { reply_to: question.id } });
    await rt.store.append(answer);
    const [after] = await threadRuns(rt.store.queries, thread_id);
    expect(after!.questions).toEqual([]);
  });

  it("replies in a thread without asking anyone, and refuses a reply to a message that is not there", async () => {
    const thread_id = await newThread(rt, "view");
    const first = await personMessage(rt.store.queries, thread_id, { text: "Who has the Q3 numbers?" }, dana);
    await rt.store.append(first);
    const reply = await personMessage(rt.store.queries, thread_id, { text: "I do", reply_to: first.id }, { agent_id: "user:lee", display_name: "Lee" });
    expect(reply).toMatchObject({ run_id: first.run_id, to: [], payload: { reply_to: first.id } });
    await expect(personMessage(rt.store.queries, thread_id, { text: "?", reply_to: "nope" }, dana)).rejects.toMatchObject({ code: "unknown_message", status: 422 });
  });

  it("lists the approvals a run waits on with their run's title, and its outcome once it ended", async () => {
    const thread_id = await newThread(rt, "view");
    const { run_id, root, child, at } = await startRun(thread_id);
    await rt.store.append(
      msg(
        "approval.requested",
        {
          approval_id: `apr_${run_id}`,
          subject: { kind: "tool_call", agent: "agent:pm-1", tool: "reply" },
          summary: "pm-1 will send the people in the channel a message",
          approvers: "any",
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          rule: "approve-replies",
          reason: "replies reach the channel only after a person has read them",
        },
        { ...at, task_id: root, from: { agent_id: "agent:policy", role: "system" } },
      ),
    );
    let [run] = await threadRuns(rt.store.queries, thread_id);
    expect(run!.approvals).toEqual([expect.objectContaining({ approval_id: `apr_${run_id}`, summary: "pm-1 will send the people in the channel a message" })]);
    const listed = (await listApprovals(rt.store.queries, "pending", thread_id)).find((a) => a.run_id === run_id);
    // With why the policy holds it, in its own words (the inbox's "Why").
    expect(listed).toMatchObject({ run_title: "Analyze last quarter's sales trends", reason: "replies reach the channel only after a person has read them" });

    await rt.store.append([
      msg("approval.granted", { approval_id: `apr_${run_id}`, by: "user:dana" }, { ...at, task_id: root, from: dana }),
      msg("task.result", { summary: "done" }, { ...at, task_id: child, parent_task_id: root, from: analyst }),
      msg("task.result", { summary: "Revenue grew **12.5%** to $4,210,000", report_markdown: "long" }, { ...at, task_id: root, from: pm }),
    ]);
    [run] = await threadRuns(rt.store.queries, thread_id);
    expect(run).toMatchObject({ state: "succeeded", approvals: [], active: [], questions: [] });
    expect(run!.outcome).toMatchObject({ kind: "result", text: "Revenue grew **12.5%** to $4,210,000", agent_id: "agent:pm-1" });

    // A fork is named as a fork.
    const fork = await forkRun(rt.store, run_id, run!.first_seq + 1);
    const forked = (await threadRuns(rt.store.queries, thread_id)).find((r) => r.run_id === fork.run_id);
    expect(forked?.title).toBe(`Analyze last quarter's sales trends (fork at #${run!.first_seq + 1})`);
  });
});
