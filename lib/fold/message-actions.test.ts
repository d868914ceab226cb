/** The message-actions fold (lib/fold/message-actions.ts): edits, deletes, reactions, pins; the payload checks. */
import { describe, expect, it } from "vitest";
import { ClutchMessageSchema, isReactionEmoji, makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { affectsTask } from "./task-state";
import { countsAsUnread } from "../unread";
import { inConversation } from "../conversation";
import { foldMessageActions, isMessageAction, pinnedMessages } from "./message-actions";

let seq = 0;
const ADA = "user:ada";
const LEE = "user:lee";
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_1", from: { agent_id: ADA, role: "human" }, to: [], ...m } as never),
  seq: ++seq,
});
const as = (agent_id: string) => ({ from: { agent_id, role: "human" } });
const message = (text: string, extra: Partial<ClutchMessage> = {}) => ev({ type: "chat.message", payload: { text }, ...extra });
const react = (message_id: string, emoji: string, op: "add" | "remove", who = ADA) => ev({ type: "chat.reaction", payload: { message_id, emoji, op }, ...as(who) });
const edit = (message_id: string, text: string, who = ADA, mentions?: string[]) => ev({ type: "chat.edit", payload: { message_id, text, ...(mentions ? { mentions } : {}) }, ...as(who) });
const del = (message_id: string, who = ADA, reason?: string) => ev({ type: "chat.delete", payload: { message_id, ...(reason ? { reason } : {}) }, ...as(who) });
const pin = (message_id: string, pinned: boolean, who = ADA) => ev({ type: "chat.pin", payload: { message_id, pinned }, ...as(who) });

describe("foldMessageActions", () => {
  it("starts every message with its own text, no actions, the original as the first version", () => {
    const m = message("Hello @Lee", { payload: { text: "Hello @Lee", mentions: [LEE] } });
    const s = foldMessageActions([m]).get(m.id)!;
    expect(s).toEqual({
      id: m.id,
      run_id: "run_1",
      author: ADA,
      text: "Hello @Lee",
      mentions: [LEE],
      edited: null,
      edits: [{ text: "Hello @Lee", at: m.ts, by: ADA, seq: m.seq }],
      deleted: null,
      reactions: [],
      pinned: null,
    });
  });

  it("applies the author's edits in order, keeps the history, and ignores anyone else's", () => {
    const m = message("Revenue is 4.1M");
    const e1 = edit(m.id, "Revenue is 4.2M", ADA, [LEE]);
    const other = edit(m.id, "Revenue is 9M", LEE);
    const e2 = edit(m.id, "Revenue is 4.21M");
    const s = foldMessageActions([m, e1, other, e2]).get(m.id)!;
    expect(s.text).toBe("Revenue is 4.21M");
    expect(s.mentions).toEqual([]);
    expect(s.edited).toEqual({ at: e2.ts, by: ADA });
    expect(s.edits.map((v) => [v.text, v.seq])).toEqual([
      ["Revenue is 4.1M", m.seq],
      ["Revenue is 4.2M", e1.seq],
      ["Revenue is 4.21M", e2.seq],
    ]);
    expect(foldMessageActions([m, e1]).get(m.id)!.mentions).toEqual([LEE]);
  });

  it("counts one reaction per person, ordered by first reaction, with who reacted in order", () => {
    const m = message("Ship it?");
    const s = foldMessageActions([m, react(m.id, "👍", "add"), react(m.id, ":tada:", "add", LEE), react(m.id, "👍", "add", LEE), react(m.id, "👍", "add")]).get(m.id)!;
    expect(s.reactions).toEqual([
      { emoji: "👍", count: 2, by: [ADA, LEE] },
      { emoji: ":tada:", count: 1, by: [LEE] },
    ]);
  });

  it("removes a person's reaction, drops an emoji at zero, and ignores removing one that is not there", () => {
    const m = message("Ship it?");
    const events = [m, react(m.id, "👍", "add"), react(m.id, "🎉", "add"), react(m.id, "👍", "remove", LEE), react(m.id, "👍", "remove"), react(m.id, "👍", "add", LEE)];
    expect(foldMessageActions(events).get(m.id)!.reactions).toEqual([
      { emoji: "🎉", count: 1, by: [ADA] },
      { emoji: "👍", count: 1, by: [LEE] },
    ]);
  });

  it("pins and unpins, idempotently, and lists pinned messages in pin order", () => {
    const a = message("first");
    const b = message("second");
    const c = message("third");
    const pb = pin(b.id, true, LEE);
    const pa = pin(a.id, true);
    const events = [a, b, c, pb, pa, pin(a.id, true, LEE), pin(c.id, true), pin(c.id, false)];
    const states = foldMessageActions(events);
    expect(states.get(a.id)!.pinned).toEqual({ at: pa.ts, by: ADA, seq: pa.seq });
    expect(states.get(c.id)!.pinned).toBeNull();
    expect(pinnedMessages(events)).toEqual([b.id, a.id]);
    // Pinned again after an unpin: it moves to the end.
    expect(pinnedMessages([...events, pin(b.id, false), pin(b.id, true)])).toEqual([a.id, b.id]);
  });

  it("makes a delete a tombstone: nothing applies after it, it unpins, the text stays as it was", () => {
    const m = message("oops");
    const d = del(m.id, LEE, "posted in the wrong channel");
    const events = [m, react(m.id, "👀", "add"), pin(m.id, true), d, edit(m.id, "fixed"), react(m.id, "👍", "add"), pin(m.id, true), del(m.id)];
    const s = foldMessageActions(events).get(m.id)!;
    expect(s.deleted).toEqual({ at: d.ts, by: LEE, reason: "posted in the wrong channel" });
    expect(s.text).toBe("oops");
    expect(s.edits).toHaveLength(1);
    expect(s.reactions).toEqual([{ emoji: "👀", count: 1, by: [ADA] }]);
    expect(s.pinned).toBeNull();
    expect(pinnedMessages(events)).toEqual([]);
  });

  it("leaves out actions before their message, of unknown messages, and of another run", () => {
    const m = message("hi");
    const early = ev({ type: "chat.reaction", payload: { message_id: "msg_later", emoji: "👍", op: "add" } });
    const later = message("later", { id: "msg_later" });
    const elsewhere = ev({ type: "chat.reaction", payload: { message_id: m.id, emoji: "👍", op: "add" }, run_id: "run_2" });
    const states = foldMessageActions([early, later, m, react("msg_nowhere", "👍", "add"), elsewhere]);
    expect(states.get("msg_later")!.reactions).toEqual([]);
    expect(states.get(m.id)!.reactions).toEqual([]);
    expect(states.has("msg_nowhere")).toBe(false);
  });

  it("keys a message id by its first message: a fork's copy folds only in a view of its own run", () => {
    const m = message("original");
    const copy = message("original", { id: m.id, run_id: "run_fork", meta: { forked_from: { run_id: "run_1", seq: m.seq, at_seq: m.seq, ts: m.ts } } });
    const onCopy = ev({ type: "chat.edit", payload: { message_id: m.id, text: "copy edited" }, run_id: "run_fork" });
    expect(foldMessageActions([m, copy, onCopy]).get(m.id)!.text).toBe("original");
    expect(foldMessageActions([copy, onCopy]).get(m.id)!.text).toBe("copy edited");
  });

  it("continues an earlier fold", () => {
    const m = message("hi");
    const first = foldMessageActions([m, react(m.id, "👍", "add")]);
    const next = foldMessageActions([react(m.id, "👍", "add", LEE)], first);
    expect(next.get(m.id)!.reactions[0]!.count).toBe(2);
    expect(first.get(m.id)!.reactions[0]!.count).toBe(1);
  });
});

describe("the action types elsewhere", () => {
  const m = message("hi");
  const actions = [react(m.id, "👍", "add"), edit(m.id, "hello"), del(m.id), pin(m.id, true)];

  it("are message actions that never start or change a task, never count as unread and are no rows of the channel", () => {
    for (const a of actions) {
      expect(isMessageAction(a)).toBe(true);
      expect(affectsTask(a)).toBe(false);
      expect(countsAsUnread(a)).toBe(false);
      expect(inConversation(a)).toBe(false);
    }
    expect(isMessageAction(m)).toBe(false);
  });

  it("validate their payloads at the envelope", () => {
    for (const a of actions) {
      const { seq: _seq, ...msg } = a;
      expect(ClutchMessageSchema.safeParse(msg).success).toBe(true);
    }
    const bad = (type: string, payload: unknown) => ClutchMessageSchema.safeParse({ ...makeMessage({ type: "chat.pin", thread_id: "t", run_id: "r", task_id: "k", from: { agent_id: ADA }, to: [], payload: { message_id: "m", pinned: true } }), type, payload }).success;
    expect(bad("chat.reaction", { message_id: m.id, emoji: "", op: "add" })).toBe(false);
    expect(bad("chat.reaction", { message_id: m.id, emoji: "👍", op: "toggle" })).toBe(false);
    expect(bad("chat.reaction", { message_id: m.id, emoji: "thumbs up", op: "add" })).toBe(false);
    expect(bad("chat.edit", { message_id: m.id, text: "" })).toBe(false);
    expect(bad("chat.edit", { message_id: m.id, text: "x".repeat(100_001) })).toBe(false);
    expect(bad("chat.delete", {})).toBe(false);
    expect(bad("chat.pin", { message_id: m.id })).toBe(false);
  });

  it("take one emoji or a :shortcode: as a reaction", () => {
    for (const ok of ["👍", "👍🏽", "👩‍👩‍👧", "🇫🇷", "1️⃣", "❤️", ":thumbsup:", ":+1:", ":party_parrot:"]) expect(isReactionEmoji(ok), ok).toBe(true);
    for (const no of ["", "👍👍", "ok", "a", ":Thumbs Up:", "::", `:${"a".repeat(63)}:`, "👍 ", "<script>"]) expect(isReactionEmoji(no), no).toBe(false);
  });
});
