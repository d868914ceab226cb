/**
 * Test helpers: a runtime on the run's test database, and message builders.
 * Every test makes its own thread and run ids, so tests share the database safely.
 */
import { inject } from "vitest";
import { makeMessage, newId, type ClutchMessage, type MessageType, type PayloadOf } from "@/lib/protocol";
import { startRuntime, type Runtime } from "@/server/runtime";

/** Start the runtime (store, tail) against the test database. */
export function testRuntime(): Promise<Runtime> {
  return startRuntime({ databaseUrl: inject("databaseUrl"), dataDir: "", embeddedUrl: inject("embeddedDatabase") });
}

/** A new channel with a unique name; returns its id. */
export async function newThread(rt: Runtime, prefix = "t"): Promise<string> {
  const name = `${prefix}-${newId("thread").slice(-10).toLowerCase()}`;
  const thread = await rt.store.createThread({ name }, { agent_id: "user:test" });
  return thread.id;
}

/** A valid message of `type` in `thread_id`/`run_id`, with overrides. */
export function msg<T extends MessageType>(
  type: T,
  payload: PayloadOf<T>,
  ctx: { thread_id: string; run_id: string; task_id?: string } & Partial<ClutchMessage>,
): ClutchMessage {
  return makeMessage({
    type,
    payload,
    task_id: ctx.task_id ?? newId("task"),
    from: { agent_id: "agent:tester", role: "worker" },
    to: [],
    ...ctx,
  });
}

/** A chat.message with `text`. */
export function chat(text: string, ctx: { thread_id: string; run_id: string } & Partial<ClutchMessage>): ClutchMessage {
  return msg("chat.message", { text }, ctx);
}
