import { describe, expect, expectTypeOf, it } from "vitest";
import { isEvent, makeMessage, type StoredEvent } from "./index";

const at = { thread_id: "thr_1", run_id: "run_1", task_id: "task_1", from: { agent_id: "agent:a" }, to: [] };
const stored = (m: ReturnType<typeof makeMessage>, seq: number): StoredEvent => ({ ...m, seq });

describe("isEvent", () => {
  const chat = stored(makeMessage({ type: "chat.message", ...at, payload: { text: "hello" } }), 1);
  const error = stored(makeMessage({ type: "task.error", ...at, payload: { code: "X", message: "boom" } }), 2);

  it("says whether an event is of one of the given types", () => {
    expect(isEvent(chat, "chat.message")).toBe(true);
    expect(isEvent(chat, "task.result", "task.error")).toBe(false);
    expect(isEvent(error, "task.result", "task.error")).toBe(true);
  });

  it("narrows the payload to the type's schema", () => {
    if (!isEvent(chat, "chat.message")) throw new Error("expected a chat.message");
    expectTypeOf(chat.payload.text).toEqualTypeOf<string>();
    expectTypeOf(chat.seq).toEqualTypeOf<number>();
    expect(chat.payload.text).toBe("hello");
    if (!isEvent(error, "task.error", "task.timeout")) throw new Error("expected an outcome");
    if (error.type === "task.error") expectTypeOf(error.payload.code).toEqualTypeOf<string>();
    expect(error.type === "task.error" && error.payload.message).toBe("boom");
  });
});
