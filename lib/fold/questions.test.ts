/** The question index (lib/fold/questions.ts): open, answered and closed questions, inquiries. */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { excerpt, indexQuestions } from "./questions";

let seq = 0;
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_1", from: { agent_id: "agent:pm-1" }, to: [], ...m } as never),
  seq: ++seq,
});

describe("indexQuestions", () => {
  it("keeps a question to people open until its answer, newest open question last", () => {
    const q1 = ev({ type: "chat.message", payload: { text: "Which region?", expects_reply: true }, to: [{ agent_id: "user", role: "human" }] });
    const q2 = ev({ type: "chat.message", payload: { text: "Which year?", expects_reply: true }, to: [{ agent_id: "user" }], task_id: "task_2" });
    let idx = indexQuestions([q1, q2]);
    expect(idx.openToPeople.map((q) => q.id)).toEqual([q1.id, q2.id]);
    expect(idx.questions.get(q1.id)).toMatchObject({ to_people: true, inquiry: false, answer: null, closed: false });

    const a = ev({ type: "chat.message", payload: { text: "West", reply_to: q1.id }, from: { agent_id: "user:ada", role: "human" } });
    idx = indexQuestions([q1, q2, a]);
    expect(idx.openToPeople.map((q) => q.id)).toEqual([q2.id]);
    expect(idx.questions.get(q1.id)?.answer).toMatchObject({ id: a.id, seq: a.seq, text: "West" });
    expect(idx.messages.get(a.id)?.from.agent_id).toBe("user:ada");
  });

  it("does not list questions between agents, and marks oversight inquiries", () => {
    const q = ev({ type: "chat.message", payload: { text: "Source?", expects_reply: true, inquiry: true }, from: { agent_id: "agent:qa-1" }, to: [{ agent_id: "agent:analyst-1" }] });
    const idx = indexQuestions([q]);
    expect(idx.openToPeople).toEqual([]);
    expect(idx.questions.get(q.id)).toMatchObject({ to_people: false, inquiry: true, to: ["agent:analyst-1"] });
  });

  it("closes a question whose task ended without an answer", () => {
    const q = ev({ type: "chat.message", payload: { text: "Which region?", expects_reply: true }, to: [{ agent_id: "user" }] });
    const end = ev({ type: "task.cancel", payload: { reason: "stopped" } });
    const idx = indexQuestions([q, end]);
    expect(idx.openToPeople).toEqual([]);
    expect(idx.questions.get(q.id)).toMatchObject({ closed: true, answer: null });
  });

  it("takes the first reply as the answer and skips malformed events", () => {
    const q = ev({ type: "chat.message", payload: { text: "Which region?", expects_reply: true }, to: [{ agent_id: "user" }] });
    const a1 = ev({ type: "chat.message", payload: { text: "West", reply_to: q.id }, from: { agent_id: "user:ada" } });
    const a2 = ev({ type: "chat.message", payload: { text: "East", reply_to: q.id }, from: { agent_id: "user:bob" } });
    const idx = indexQuestions([q, { seq: 99 } as unknown as StoredEvent, a1, a2]);
    expect(idx.questions.get(q.id)?.answer?.id).toBe(a1.id);
  });
});

describe("excerpt", () => {
  it("flattens markdown and cuts long text with an ellipsis", () => {
    expect(excerpt("# Title\n\nSome **bold** text")).toBe("Title Some bold text");
    expect(excerpt("a".repeat(200), 10)).toBe(`${"a".repeat(9)}…`);
    expect(excerpt("_emphasis_ for @Lee_Park")).toBe("emphasis for @Lee_Park");
  });
});
