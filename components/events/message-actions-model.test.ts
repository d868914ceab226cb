/**
 * message-actions-model.ts: what a person is offered on a message, how reactions are described,
 * where a message's link points, which message ↑ edits, when a row's state changed, and the
 * actions a thread pane adds to its messages.
 */
import { describe, expect, it } from "vitest";
import { foldMessageActions, type MessageState } from "@/lib/fold/message-actions";
import type { StoredEvent } from "@/lib/protocol";
import { describeReaction, lastOwnMessage, messagePath, offeredActions, sameMessageState, withActions } from "./message-actions-model";

const THREAD = "thr_1";
const CHAT_RUN = "run_1";
let seq = 0;

function event(type: string, from: string, payload: Record<string, unknown>, over: Partial<StoredEvent> = {}): StoredEvent {
  seq++;
  return {
    v: "clutch/0.1",
    id: `msg_${seq}`,
    type,
    ts: new Date(Date.UTC(2026, 10, 28, 9, 0, seq)).toISOString(),
    thread_id: THREAD,
    run_id: CHAT_RUN,
    task_id: "task_1",
    parent_task_id: null,
    from: { agent_id: from, role: from.startsWith("user:") ? "human" : "agent" },
    to: [],
    payload,
    seq,
    ...over,
  } as unknown as StoredEvent;
}

const LEE = "user:usr_lee";
const DANA = "user:usr_dana";
const message = (from: string, text: string, over: Partial<StoredEvent> = {}) => event("chat.message", from, { text }, over);
const stateOf = (events: StoredEvent[], id: string) => foldMessageActions(events).get(id)!;

describe("offeredActions", () => {
  const mine = message(LEE, "Q4 numbers are in");
  const state = stateOf([mine], mine.id);

  it("offers the author everything: react, edit, delete, pin, copy link, mark unread", () => {
    expect(offeredActions(state, { agent_id: LEE, role: "member" })).toEqual({ react: true, edit: true, delete: true, pin: "pin", copyLink: true, markUnread: true });
  });

  it("lets nobody else edit; an admin may delete, a member may not", () => {
    expect(offeredActions(state, { agent_id: DANA, role: "member" })).toMatchObject({ edit: false, delete: false, react: true, pin: "pin" });
    expect(offeredActions(state, { agent_id: DANA, role: "admin" })).toMatchObject({ edit: false, delete: true });
  });

  it("offers Unpin on a pinned message, nothing on a deleted one", () => {
    const pin = event("chat.pin", DANA, { message_id: mine.id, pinned: true });
    expect(offeredActions(stateOf([mine, pin], mine.id), { agent_id: LEE, role: "member" })?.pin).toBe("unpin");
    const del = event("chat.delete", LEE, { message_id: mine.id });
    expect(offeredActions(stateOf([mine, del], mine.id), { agent_id: DANA, role: "admin" })).toBeNull();
  });

  it("offers only reacting, the link and mark unread on a copy of another run's message", () => {
    expect(offeredActions(state, { agent_id: LEE, role: "admin" }, { copy: true })).toEqual({ react: true, edit: false, delete: false, pin: null, copyLink: true, markUnread: true });
  });
});

describe("describeReaction", () => {
  const names: Record<string, string> = { [LEE]: "Lee", [DANA]: "Dana", "user:usr_ada": "Ada", "agent:pm-1": "Project Manager" };
  const nameOf = (id: string) => names[id] ?? id;
  const r = (...by: string[]) => ({ emoji: "👍", count: by.length, by });

  it.each([
    [r(LEE), DANA, "Lee reacted with 👍"],
    [r(LEE, DANA), null, "Lee and Dana reacted with 👍"],
    [r(DANA), DANA, "You reacted with 👍"],
    [r(LEE, DANA), DANA, "You and Lee reacted with 👍"],
    [r(LEE, DANA, "agent:pm-1"), DANA, "You, Lee and Project Manager reacted with 👍"],
    [r(LEE, DANA, "user:usr_ada", "agent:pm-1"), DANA, "You, Lee and 2 others reacted with 👍"],
    [r(LEE, "user:usr_ada", "agent:pm-1", DANA, "user:usr_x"), null, "Lee, Ada and 3 others reacted with 👍"],
  ])("%j seen by %s reads %j", (reaction, me, want) => {
    expect(describeReaction(reaction, me, nameOf)).toBe(want);
  });
});

describe("messagePath", () => {
  it("opens a message of the channel at its place", () => {
    const m = message(LEE, "hello");
    expect(messagePath(m)).toBe(`/c/${THREAD}?event=${m.id}`);
  });

  it("opens a reply in its message's thread, and a run's message between agents in the run's thread", () => {
    const parent = message(LEE, "hello");
    const reply = message(DANA, "hi", { payload: { text: "hi", reply_to: parent.id } } as Partial<StoredEvent>);
    expect(messagePath(reply)).toBe(`/c/${THREAD}?message=${parent.id}&event=${reply.id}`);
    const between = message("agent:pm-1", "plan", { run_id: "run_2", to: [{ agent_id: "agent:analyst-1" }] });
    expect(messagePath(between)).toBe(`/c/${THREAD}?run=run_2&event=${between.id}`);
  });
});

describe("lastOwnMessage", () => {
  it("finds the person's last message that is not deleted", () => {
    const a = message(LEE, "one");
    const b = message(DANA, "two");
    const c = message(LEE, "three");
    const gone = event("chat.delete", LEE, { message_id: c.id });
    const states = foldMessageActions([a, b, c, gone]);
    const rows = [a, b, c].map((e) => ({ kind: "event", event: e, ctx: { actions: states.get(e.id) } }));
    expect(lastOwnMessage([{ kind: "day" }, ...rows], LEE)).toBe(a.id);
    expect(lastOwnMessage(rows, DANA)).toBe(b.id);
    expect(lastOwnMessage(rows, "user:usr_nobody")).toBeNull();
  });
});

describe("sameMessageState", () => {
  it("tells a change of text, reactions or pin from a fold that changed nothing", () => {
    const m = message(LEE, "hi");
    const base = [m, event("chat.reaction", DANA, { message_id: m.id, emoji: "👍", op: "add" })];
    const again: MessageState = stateOf(base, m.id);
    expect(sameMessageState(stateOf(base, m.id), again)).toBe(true);
    expect(sameMessageState(again, stateOf([...base, event("chat.reaction", LEE, { message_id: m.id, emoji: "👍", op: "add" })], m.id))).toBe(false);
    expect(sameMessageState(again, stateOf([...base, event("chat.edit", LEE, { message_id: m.id, text: "hi!" })], m.id))).toBe(false);
    expect(sameMessageState(again, stateOf([...base, event("chat.pin", DANA, { message_id: m.id, pinned: true })], m.id))).toBe(false);
    expect(sameMessageState(undefined, undefined)).toBe(true);
    expect(sameMessageState(again, undefined)).toBe(false);
  });
});

describe("withActions", () => {
  it("adds the channel's actions on the thread's messages, in seq order, and no others", () => {
    const root = message(LEE, "root");
    const other = message(DANA, "elsewhere");
    const react = event("chat.reaction", DANA, { message_id: root.id, emoji: "🎉", op: "add" });
    const reply = message(DANA, "reply", { payload: { text: "reply", reply_to: root.id } } as Partial<StoredEvent>);
    const unrelated = event("chat.pin", LEE, { message_id: other.id, pinned: true });
    const edit = event("chat.edit", DANA, { message_id: reply.id, text: "reply!" });
    const channel = [root, other, react, reply, unrelated, edit];
    expect(withActions([root, reply], channel).map((e) => e.seq)).toEqual([root.seq, react.seq, reply.seq, edit.seq]);
    const plain = [root];
    expect(withActions(plain, [root, other])).toBe(plain);
  });
});
