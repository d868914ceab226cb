/**
 * What For you says of an item (docs/channels.md "For you"): the row's words and the browser
 * notification, a direct message by its sender and its other party's name, never its stored name.
 */
import { describe, expect, it } from "vitest";
import type { InboxItem } from "@/lib/api/types";
import { channelPlace, dmOtherParty, type NamedThread } from "@/components/identity/channel-label";
import { itemWords, newCount, notificationFor, type Naming } from "./wording";

const ME = "user:lee";
const NAMES: Record<string, string> = { "agent:pm-1": "Project Manager", "agent:analyst-1": "Analyst", "user:ada": "Ada Lovelace", [ME]: "Lee Park" };
const THREADS: Record<string, NamedThread> = {
  thr_sales: { kind: "channel", name: "sales", dm_between: [] },
  thr_ada: { kind: "dm", name: "dm-35f747arcpbw", dm_between: ["user:ada", ME] },
  thr_pm: { kind: "dm", name: "dm-9a8b7c6d5e4f", dm_between: ["agent:pm-1", ME] },
};
const threadOf = (ref: { thread_id: string; thread_name?: string | null }): NamedThread => THREADS[ref.thread_id] ?? { kind: "channel", name: ref.thread_name ?? ref.thread_id, dm_between: [] };
const naming: Naming = {
  nameOf: (who) => NAMES[who.agent_id] ?? who.agent_id,
  place: (ref) => channelPlace(threadOf(ref), ME, (id) => NAMES[id]),
  other: (ref) => dmOtherParty(threadOf(ref), ME),
};

function item(kind: InboxItem["kind"], thread_id: string, from: string, more: Partial<InboxItem> = {}): InboxItem {
  return {
    kind,
    key: `${kind}:run_1/msg_1`,
    thread_id,
    thread_name: THREADS[thread_id]?.name ?? "unknown",
    run_id: "run_1",
    event_id: "msg_1",
    seq: 1,
    approval_id: null,
    from: { agent_id: from },
    text: "Lunch on Friday?",
    run_title: null,
    at: "2026-01-01T00:00:00.000Z",
    href: `/c/${thread_id}?event=msg_1`,
    unread: true,
    done: false,
    ...more,
  };
}

describe("a direct message's item", () => {
  it("reads as sent by the person, or written by the agent, the DM's other party", () => {
    expect(itemWords(item("dm", "thr_ada", "user:ada"), naming)).toEqual({ who: "Ada Lovelace", action: "sent you a direct message" });
    expect(itemWords(item("dm", "thr_pm", "agent:pm-1"), naming)).toEqual({ who: "Project Manager", action: "wrote in your direct message" });
  });
  it("names the DM by its other party when someone else wrote in it, never by its stored name", () => {
    const words = itemWords(item("dm", "thr_pm", "agent:analyst-1"), naming);
    expect(words).toEqual({ who: "Analyst", action: "wrote in the direct message with Project Manager" });
    expect(JSON.stringify(words)).not.toContain("dm-");
  });
  it("takes the sender for the other party when the DM is not in the person's list", () => {
    expect(itemWords(item("dm", "thr_gone", "user:ada"), naming).action).toBe("sent you a direct message");
  });
  it("says how many are new when more than one is unread", () => {
    expect(newCount(item("dm", "thr_ada", "user:ada", { unread_count: 3 }))).toBe("3 new");
    expect(newCount(item("dm", "thr_ada", "user:ada", { unread_count: 1 }))).toBeNull();
    expect(newCount(item("dm", "thr_ada", "user:ada", { unread_count: 0, unread: false, done: true }))).toBeNull();
    expect(newCount(item("mention", "thr_sales", "user:ada"))).toBeNull();
  });
  it("is announced like a message from its sender: the name over the text", () => {
    expect(notificationFor(item("dm", "thr_ada", "user:ada"), naming)).toEqual({ title: "Ada Lovelace", body: "Lunch on Friday?" });
    expect(notificationFor(item("dm", "thr_pm", "agent:pm-1"), naming)).toEqual({ title: "Project Manager", body: "Lunch on Friday?" });
    expect(notificationFor(item("dm", "thr_pm", "agent:analyst-1"), naming).title).toBe("Analyst in the direct message with Project Manager");
  });
});

describe("the other kinds", () => {
  it("say what they want and where", () => {
    expect(itemWords(item("question", "thr_sales", "agent:pm-1"), naming)).toEqual({ who: "Project Manager", action: "asks you in #sales" });
    expect(itemWords(item("mention", "thr_ada", "user:ada"), naming).action).toBe("mentioned you in the direct message with Ada Lovelace");
    expect(itemWords(item("approval", "thr_sales", "agent:pm-1", { thread_name: null }), naming).action).toBe("needs your approval");
    expect(notificationFor(item("question", "thr_sales", "agent:pm-1"), naming).title).toBe("Project Manager asks you in #sales");
    expect(notificationFor(item("approval", "thr_sales", "agent:pm-1"), naming).title).toBe("Approval needed in #sales");
    expect(notificationFor(item("mention", "thr_sales", "user:ada"), naming).title).toBe("Ada Lovelace mentioned you in #sales");
  });
});
