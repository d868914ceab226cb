/**
 * People (docs/channels.md "Mentions" and "For you"): @mentions of people resolve to members of
 * the channel only; a message that mentions only people (or @here) starts no run; @channel and
 * @here reach everyone who may read the channel; the For you inbox
 * (GET /api/inbox) lists the questions, approvals and mentions that need a person, only in
 * channels they may read, and drops them once answered or decided; a direct message the other
 * party wrote in is one item, open until read; a person who joins starts with the channels'
 * history read. Built-in model, real PostgreSQL, route handlers called as
 * each person (through their API key).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeMessage, newId, type StoredEvent } from "@/lib/protocol";
import type { InboxAnswer, ThreadSummary } from "@/lib/api/types";
import type { Clutch } from "@/server/clutch";
import * as dmsRoute from "@/app/api/dms/route";
import * as inboxRoute from "@/app/api/inbox/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as peopleRoute from "@/app/api/threads/[thread_id]/people/route";
import * as readRoute from "@/app/api/threads/[thread_id]/read/route";
import * as threadsRoute from "@/app/api/threads/route";
import { newThread, requestAs, testPerson, type TestPrincipal } from "./helpers";
import { scratchWorkspace, startAgents, waitFor } from "./agents";

let rt: Clutch;
let sales: string;
let admin: TestPrincipal;
let member: TestPrincipal;
let guest: TestPrincipal;
/** A unique last name, so handles do not meet other test files' people. */
const tag = newId("user").slice(-6).toLowerCase();

beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  sales = rt.channels[0]!.thread_id;
  admin = await testPerson(rt, "admin", `Dana ${tag}`);
  member = await testPerson(rt, "member", `Lee ${tag}`);
  guest = await testPerson(rt, "guest", `Gus ${tag}`);
}, 60_000);
afterAll(async () => {
  await rt?.stop();
});

const json = { "content-type": "application/json" };

async function post(as: TestPrincipal, thread_id: string, text: string, reply_to?: string) {
  const res = await messagesRoute.POST(
    requestAs(as, `http://t/api/threads/${thread_id}/messages`, { method: "POST", headers: json, body: JSON.stringify({ text, ...(reply_to ? { reply_to } : {}) }) }),
    { params: Promise.resolve({ thread_id }) },
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { event: StoredEvent }).event;
}

async function inbox(as: TestPrincipal): Promise<InboxAnswer> {
  const res = await inboxRoute.GET(requestAs(as, "http://t/api/inbox"));
  expect(res.status).toBe(200);
  return (await res.json()) as InboxAnswer;
}

async function threads(as: TestPrincipal): Promise<ThreadSummary[]> {
  const res = await threadsRoute.GET(requestAs(as, "http://t/api/threads"));
  return ((await res.json()) as { threads: ThreadSummary[] }).threads;
}

const handle = (p: TestPrincipal) => p.person!.name.replaceAll(" ", "_");

describe("@mentions of people", () => {
  it("a mention of a member becomes user:<id>, lands in their For you unread, and is done once they read the channel", async () => {
    const t = await newThread(rt, "people");
    const sent = await post(admin, t, `@${handle(member)} can you check the Q4 figures?`);
    expect(sent.payload.mentions).toEqual([member.agent_id]);

    const mine = await inbox(member);
    const item = mine.items.find((i) => i.event_id === sent.id);
    expect(item).toMatchObject({ kind: "mention", thread_id: t, from: { agent_id: admin.agent_id, display_name: admin.person!.name }, text: `@${handle(member)} can you check the Q4 figures?`, unread: true, done: false, href: `/c/${t}?event=${sent.id}` });
    // Not in the sender's, nor in anyone else's.
    expect((await inbox(admin)).items.some((i) => i.event_id === sent.id)).toBe(false);
    expect((await inbox(guest)).items.some((i) => i.event_id === sent.id)).toBe(false);

    // Reading the channel makes it done, and the open count drops by one.
    const summary = (await threads(member)).find((x) => x.id === t)!;
    const res = await readRoute.PUT(
      requestAs(member, `http://t/api/threads/${t}/read`, { method: "PUT", headers: json, body: JSON.stringify({ seq: summary.last_seq, count: summary.message_count }) }),
      { params: Promise.resolve({ thread_id: t }) },
    );
    expect(res.status).toBe(200);
    const after = await inbox(member);
    expect(after.items.find((i) => i.event_id === sent.id)).toMatchObject({ unread: false, done: true });
    // It no longer counts as open (other files' runs change the rest of the count meanwhile).
    const open = (a: InboxAnswer) => a.items.filter((i) => !i.done).map((i) => i.key);
    expect(open(mine)).toContain(item!.key);
    expect(open(after)).not.toContain(item!.key);
    expect(after.open).toBe(open(after).length);
  });

  it("a mention of someone who is not a member of the channel resolves to nothing and leaks nothing", async () => {
    const secret = (await rt.store.createThread({ name: `secret-${tag}-${newId("thread").slice(-6).toLowerCase()}`, visibility: "private" }, { agent_id: admin.agent_id })).id;
    const sent = await post(admin, secret, `@${handle(member)} and @${handle(guest)} look at this`);
    expect(sent.payload.mentions).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain(member.agent_id);
    expect((await inbox(member)).items.some((i) => i.thread_id === secret)).toBe(false);
    // The channel's people are not listed to someone who cannot read it.
    const res = await peopleRoute.GET(requestAs(member, `http://t/api/threads/${secret}/people`), { params: Promise.resolve({ thread_id: secret }) });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(admin.person!.name);

    // A guest is no member of a public channel until added; the explicit id form resolves to nothing either.
    const open = await newThread(rt, "public");
    const again = await post(admin, open, `@${handle(guest)} @${guest.agent_id} hello`);
    expect(again.payload.mentions).toBeUndefined();
    expect((await inbox(guest)).items.some((i) => i.event_id === again.id)).toBe(false);
    // The people of the public channel: admins and members, with handles; no guest, no e-mail.
    const listed = await peopleRoute.GET(requestAs(member, `http://t/api/threads/${open}/people`), { params: Promise.resolve({ thread_id: open }) });
    const { people } = (await listed.json()) as { people: { agent_id: string; handle: string }[] };
    expect(people).toEqual(expect.arrayContaining([expect.objectContaining({ agent_id: member.agent_id, handle: handle(member) })]));
    expect(people.some((p) => p.agent_id === guest.agent_id)).toBe(false);
    expect(JSON.stringify(people)).not.toContain("@test.local");
  });

  it("a message that mentions only people (or @here) starts no run; one that mentions nobody is a request to the entry agent", async () => {
    const toPeople = await post(admin, sales, `@${handle(member)} what do you think of last quarter?`);
    expect(toPeople.payload.mentions).toEqual([member.agent_id]);
    const toEveryone = await post(admin, sales, "@here who has the Q4 deck?");
    expect(toEveryone.payload.mentions).toEqual(["here"]);
    const request = await post(admin, sales, "Analyze last quarter's sales trends");
    // Reactions run in seq order: once the later message has its run, the earlier ones were seen.
    await waitFor(rt, sales, "the request's run", (evs) => evs.find((e) => e.type === "task.request" && (e.payload.input as { message_id?: string })?.message_id === request.id));
    const events = await rt.store.readAll({ thread_id: sales });
    for (const quiet of [toPeople, toEveryone]) {
      expect(await rt.store.queries.eventByIdempotencyKey(`open-run:${quiet.id}`)).toBeNull();
      expect(events.some((e) => e.type === "task.request" && (e.payload.input as { message_id?: string })?.message_id === quiet.id)).toBe(false);
    }
  });

  it("@channel (and @everyone, @here) lands in the For you of every person who may read the channel but the sender", async () => {
    const t = await newThread(rt, "everyone");
    const sent = await post(admin, t, "@channel the Q4 review moves to Friday");
    expect(sent.payload.mentions).toEqual(["channel"]);
    expect((await inbox(member)).items.find((i) => i.event_id === sent.id)).toMatchObject({ kind: "mention", thread_id: t, unread: true, done: false, href: `/c/${t}?event=${sent.id}` });
    // Not in the sender's; not in a guest's, who may not read the channel.
    expect((await inbox(admin)).items.some((i) => i.event_id === sent.id)).toBe(false);
    expect((await inbox(guest)).items.some((i) => i.event_id === sent.id)).toBe(false);

    // @everyone is @channel; @here is stored as is and reaches everyone too (presence is not stored).
    const here = await post(member, t, "@here @everyone standup in five?");
    expect(here.payload.mentions).toEqual(["here", "channel"]);
    expect((await inbox(admin)).items.find((i) => i.event_id === here.id)).toMatchObject({ kind: "mention", unread: true });
    expect((await inbox(member)).items.some((i) => i.event_id === here.id)).toBe(false);
  });
});

describe("For you", () => {
  it("lists a question to the channel for a member who can read it, not for a guest who cannot, and drops it once answered", async () => {
    const question = await waitFor(rt, sales, "pm-1's question", (evs) => evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply === true));
    expect(question.to.map((t) => t.agent_id)).toContain("user");
    const item = (await inbox(member)).items.find((i) => i.kind === "question" && i.event_id === question.id);
    expect(item).toMatchObject({ thread_id: sales, run_id: question.run_id, from: { agent_id: "agent:pm-1" }, done: false, href: `/c/${sales}?run=${question.run_id}&event=${question.id}` });
    expect(item!.run_title).toBe("Analyze last quarter's sales trends");
    expect((await inbox(guest)).items.some((i) => i.event_id === question.id)).toBe(false);

    await post(member, sales, "Regional breakdown by major market", question.id);
    expect((await inbox(member)).items.some((i) => i.event_id === question.id)).toBe(false);
    expect((await inbox(admin)).items.some((i) => i.event_id === question.id)).toBe(false);
  }, 120_000);

  it("lists a pending approval for an admin when its approvers are role:admin, not for a member, and drops it once decided", async () => {
    const t = await newThread(rt, "approve");
    const run_id = newId("run");
    const task_id = newId("task");
    const approval_id = newId("approval");
    await rt.store.append(
      makeMessage({
        type: "approval.requested",
        thread_id: t,
        run_id,
        task_id,
        from: { agent_id: "agent:policy", role: "system" },
        to: [],
        payload: {
          approval_id,
          subject: { kind: "tool_call", agent: "agent:analyst-1", tool: "send_report" },
          approvers: ["role:admin"],
          summary: "analyst-1 will send the report to the board",
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      }),
    );
    const item = (await inbox(admin)).items.find((i) => i.approval_id === approval_id);
    expect(item).toMatchObject({ kind: "approval", thread_id: t, run_id, text: "analyst-1 will send the report to the board", href: `/approvals?approval=${approval_id}`, done: false });
    expect((await inbox(member)).items.some((i) => i.approval_id === approval_id)).toBe(false);

    await rt.approvals.decide(approval_id, { decision: "approve" }, { agent_id: admin.agent_id, role: "admin", display_name: admin.person!.name });
    expect((await inbox(admin)).items.some((i) => i.approval_id === approval_id)).toBe(false);
  });
});

describe("direct messages in For you", () => {
  async function openDm(as: TestPrincipal, withWhom: string): Promise<string> {
    const res = await dmsRoute.POST(requestAs(as, "http://t/api/dms", { method: "POST", headers: json, body: JSON.stringify({ with: withWhom }) }), undefined as never);
    expect(res.status).toBeLessThan(300);
    return ((await res.json()) as { thread: ThreadSummary }).thread.id;
  }
  const inThread = (answer: InboxAnswer, thread_id: string) => answer.items.filter((i) => i.thread_id === thread_id);
  /** How many of `answer`'s open items are in `thread_id`; `open` counts the open items. */
  const openIn = (answer: InboxAnswer, thread_id: string) => {
    expect(answer.open).toBe(answer.items.filter((i) => !i.done).length);
    return inThread(answer, thread_id).filter((i) => !i.done).length;
  };

  it("a person's message is one open item until read; your own never show; a third person sees nothing", async () => {
    const ada = await testPerson(rt, "member", `Ada ${tag}`);
    const dm = await openDm(ada, member.agent_id);
    const before = await inbox(member);
    expect(inThread(before, dm)).toEqual([]);

    const first = await post(ada, dm, "Lunch on Friday?");
    const one = await inbox(member);
    expect(inThread(one, dm)).toEqual([
      expect.objectContaining({ kind: "dm", key: `dm:${first.run_id}/${first.id}`, event_id: first.id, from: { agent_id: ada.agent_id, display_name: ada.person!.name }, text: "Lunch on Friday?", unread: true, done: false, unread_count: 1, href: `/c/${dm}?event=${first.id}` }),
    ]);
    // One open item for the DM (other files' runs change the rest of the count meanwhile).
    expect(openIn(one, dm)).toBe(1);

    // The DM's newest message stands for it, with how many are unread; the person's own replies never show.
    const second = await post(ada, dm, "At noon, the usual place");
    await post(member, dm, "Sure, see you there");
    const two = await inbox(member);
    expect(inThread(two, dm)).toEqual([expect.objectContaining({ kind: "dm", event_id: second.id, text: "At noon, the usual place", unread: true, unread_count: 2 })]);
    expect(openIn(two, dm)).toBe(1);
    // Nobody else's For you has it (an admin included); Ada's has Lee's reply.
    expect(inThread(await inbox(admin), dm)).toEqual([]);
    expect(inThread(await inbox(guest), dm)).toEqual([]);
    expect(inThread(await inbox(ada), dm)).toEqual([expect.objectContaining({ kind: "dm", from: expect.objectContaining({ agent_id: member.agent_id }), unread_count: 1 })]);

    // Read past it: done, and no longer counted.
    const summary = (await threads(member)).find((x) => x.id === dm)!;
    await rt.identity.readMarks.mark(member.agent_id, dm, summary.last_seq, summary.message_count);
    const read = await inbox(member);
    expect(inThread(read, dm)).toEqual([expect.objectContaining({ kind: "dm", event_id: second.id, unread: false, done: true, unread_count: 0 })]);
    expect(openIn(read, dm)).toBe(0);

    // A message that also @mentions the person is listed once, as the DM.
    const mention = await post(ada, dm, `@${handle(member)} bring the Q4 deck`);
    expect(mention.payload.mentions).toEqual([member.agent_id]);
    const again = await inbox(member);
    expect(again.items.filter((i) => i.event_id === mention.id)).toEqual([expect.objectContaining({ kind: "dm", unread: true, unread_count: 1 })]);
    expect(inThread(again, dm)).toHaveLength(1);
    expect(openIn(again, dm)).toBe(1);
  });

  // A step of the built-in team may take 90 s while the suite runs beside the agent processes.
  it("an agent's message to the person in their DM with it is an item too", async () => {
    const dm = await openDm(member, "agent:pm-1");
    await post(member, dm, "What can you do?");
    const answer = await waitFor(rt, dm, "pm-1's answer", (evs) => evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1"), 240_000);
    const items = inThread(await inbox(member), dm);
    expect(items.filter((i) => i.kind === "dm")).toEqual([expect.objectContaining({ event_id: answer.id, from: expect.objectContaining({ agent_id: "agent:pm-1" }), unread: true, done: false })]);
  }, 260_000);
});

describe("joining", () => {
  it("a person who joins starts with every channel's history read", async () => {
    const t = await newThread(rt, "backlog");
    for (const text of ["one", "two", "three"]) await post(admin, t, text);
    const before = (await threads(admin)).find((x) => x.id === t)!;
    expect(before.message_count).toBeGreaterThanOrEqual(3);

    // Other test files write to their channels meanwhile: what was there when the person joined is read.
    const atJoin = new Map((await threads(admin)).map((x) => [x.id, x]));
    const joined = await testPerson(rt, "member", `Ada ${tag}`);
    const mine = await threads(joined);
    expect(mine.length).toBeGreaterThan(0);
    for (const x of mine) {
      expect(x.read, x.name).not.toBeNull();
      const was = atJoin.get(x.id);
      if (was) expect(x.read!.count, x.name).toBeGreaterThanOrEqual(was.message_count);
    }
    expect(mine.find((x) => x.id === t)!.read).toEqual({ seq: before.last_seq, count: before.message_count });
    // Newer messages are unread.
    await post(admin, t, "four");
    const later = (await threads(joined)).find((x) => x.id === t)!;
    expect(later.message_count - later.read!.count).toBe(1);
  });
});
