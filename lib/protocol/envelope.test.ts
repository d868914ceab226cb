/** ClutchMessageSchema (seed 001 §1.1, §1.2, §2): what a caller sees when a message is wrong. */
import { describe, expect, it } from "vitest";
import { makeMessage } from "./build";
import { ClutchMessageInputSchema, ClutchMessageSchema } from "./envelope";
import { isId } from "./ids";

const valid = {
  v: "clutch/0.1",
  id: "msg_01JD0Q8X9YABCDEFGHJKMNPQRS",
  ts: "2026-02-01T13:20:11.123Z",
  thread_id: "thr_1",
  run_id: "run_1",
  task_id: "task_1",
  from: { agent_id: "user", role: "human" },
  to: [{ agent_id: "agent:pm-1" }],
  type: "chat.message",
  payload: { text: "Analyze last quarter's sales trends" },
};

/** `[path, message]` of every issue, or "ok". */
function issues(input: unknown) {
  const r = ClutchMessageSchema.safeParse(input);
  return r.success ? "ok" : r.error.issues.map((i) => [i.path, i.message]);
}

describe("ClutchMessageSchema", () => {
  it("accepts a minimal chat.message", () => {
    expect(issues(valid)).toBe("ok");
  });

  it("chat.message without text → payload.text", () => {
    expect(issues({ ...valid, payload: {} })).toEqual([
      [["payload", "text"], "chat.message: Invalid input: expected string, received undefined"],
    ]);
    expect(issues({ ...valid, payload: { text: "" } })).toEqual([[["payload", "text"], "chat.message: a message needs text"]]);
  });

  it("unknown type → type, listing the known ones", () => {
    const out = issues({ ...valid, type: "chat.whisper" });
    expect(out).toHaveLength(1);
    expect(out[0][0]).toEqual(["type"]);
    expect(out[0][1]).toMatch(/^unknown type "chat\.whisper"; expected one of task\.request, .*routing\.failure, policy\.decision, .*approval\.expired, audit\.change, model\.usage$/);
  });

  it("bad ts → ts", () => {
    expect(issues({ ...valid, ts: "01/02/2026 13:20" })).toEqual([
      [["ts"], "ts must be an ISO 8601 date-time, e.g. 2026-02-01T13:20:11.123Z"],
    ]);
    expect(issues({ ...valid, ts: "2026-02-01T13:20:11" })).not.toBe("ok"); // no zone
    expect(issues({ ...valid, ts: "2026-02-01T13:20:11+02:00" })).toBe("ok");
  });

  it("unknown top-level field → rejected by name", () => {
    const r = ClutchMessageSchema.safeParse({ ...valid, channel: "general" });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", keys: ["channel"], path: [] })]);
    expect(issues({ ...valid, meta: { channel: "general" } })).toBe("ok");
  });

  it("wrong version, empty ids, bad attempt, attachment without kind", () => {
    expect(issues({ ...valid, v: "clutch/1" })).toEqual([[["v"], 'v must be "clutch/0.1"']]);
    expect(issues({ ...valid, run_id: "" })).toEqual([[["run_id"], "run_id must not be empty"]]);
    expect(issues({ ...valid, from: {} })).toEqual([[["from", "agent_id"], expect.stringMatching(/^agent_id (is required|must be a string)$/)]]);
    expect(issues({ ...valid, to: [{ agent_id: 7 }] })).toEqual([[["to", 0, "agent_id"], "agent_id must be a string"]]);
    expect(issues({ ...valid, attempt: 0 })).toEqual([[["attempt"], "attempt is 1-based"]]);
    expect(issues({ ...valid, attachments: [{ ref: "artifact:x" }] })).toEqual([
      [["attachments", 0, "kind"], "Invalid input: expected string, received undefined"],
    ]);
  });

  it("checks each type's payload: task.error, routing.decision, tool.call", () => {
    const err = { ...valid, type: "task.error", payload: { message: "down" } };
    expect(issues(err)).toEqual([[["payload", "code"], "task.error: Invalid input: expected string, received undefined"]]);
    const routing = {
      ...valid,
      type: "routing.decision",
      payload: { selected: "agent:ken", candidates: ["agent:ken"], reason: "only one", scores: { "agent:ken": "high" } },
    };
    expect(issues(routing)).toEqual([
      [["payload", "scores", "agent:ken"], "routing.decision: Invalid input: expected number, received string"],
    ]);
    expect(issues({ ...valid, type: "tool.call", payload: { tool: "read_file" } })).toEqual([
      [["payload", "call_id"], "tool.call: Invalid input: expected string, received undefined"],
    ]);
  });

  it("checks a built-in payload_type contract (§3.3)", () => {
    const result = { ...valid, type: "task.result", payload_type: "research.summary.v1", payload: { findings: [] } };
    expect(issues(result)).toEqual([
      [["payload", "citations"], "research.summary.v1: Invalid input: expected array, received undefined"],
    ]);
    expect(issues({ ...result, payload_type: "custom.thing.v1" })).toBe("ok");
  });

  it("keeps unknown payload fields (payloads are loose)", () => {
    const r = ClutchMessageSchema.parse({ ...valid, payload: { text: "hi", inquiry: true } });
    expect(r.payload).toEqual({ text: "hi", inquiry: true });
  });

  it("ClutchMessageInputSchema takes one message or a non-empty batch", () => {
    expect(ClutchMessageInputSchema.safeParse(valid).success).toBe(true);
    expect(ClutchMessageInputSchema.safeParse([valid, valid]).success).toBe(true);
    expect(ClutchMessageInputSchema.safeParse([]).success).toBe(false);
  });
});

describe("makeMessage", () => {
  it("fills v, a msg_ id and ts, and the result parses", () => {
    const m = makeMessage({
      thread_id: "thr_1",
      run_id: "run_1",
      task_id: "task_1",
      from: { agent_id: "agent:orchestrator" },
      to: [],
      type: "chat.system",
      payload: { text: "Run started" },
    });
    expect(m.v).toBe("clutch/0.1");
    expect(isId("message", m.id)).toBe(true);
    expect(Date.parse(m.ts)).not.toBeNaN();
    expect(ClutchMessageSchema.parse(m)).toEqual(m);
  });

  it("keeps a given id and ts", () => {
    const m = makeMessage({ ...valid, type: "chat.message", payload: { text: "x" }, id: "msg_given", ts: valid.ts });
    expect([m.id, m.ts]).toEqual(["msg_given", valid.ts]);
  });
});
