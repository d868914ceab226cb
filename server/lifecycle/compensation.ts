/**
 * Compensation (docs/lifecycle.md "Compensation", after Cordum's saga-style undo): a task of a
 * workspace agent that ends in task.error, task.cancel or task.timeout after tool calls with side
 * effects has them undone by the calls its CAP manifest declares (`compensations`: after
 * `<server>.<tool>`, undo `<server>.<tool>` with arguments that may name the original call's
 * `$result.<path>` or `$arguments.<path>`). Newest first, each as events of the ended task:
 *
 *   tool.call   (meta.compensation = { of_call_id, after })  then  tool.result | tool.error
 *
 * Idempotency keys make each undo's events happen once however often it is attempted. An undo
 * counts as done once its outcome (tool.result or tool.error) is in the log: one whose call was
 * recorded but whose outcome was not (the process stopped in between) is called again, so undo
 * tools must be idempotent. A failed undo is recorded (tool.error) and the others still run.
 * After a restart the orchestrator's `recover()` compensates the tasks that ended unsuccessfully
 * within COMPENSATION_WINDOW_MS (`compensateEnded`), so an interrupted compensation finishes.
 */
import { isEvent, makeMessage, type StoredEventOf } from "@/lib/protocol";
import type { ToolCaller } from "../workspace/tools";
import type { TaskRow } from "../events/queries";
import type { EventStore } from "../events/store";
import type { WorkspaceAgent } from "../workspace/workspace";

type Rule = NonNullable<WorkspaceAgent["manifest"]["compensations"]>[number];

/** The value at a dot path of `root` (undefined when any step is missing). */
function at(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const key of path.split(".").filter(Boolean)) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The undo call's arguments: `$result.x` / `$arguments.x` references resolved, everything else as given. */
export function undoArguments(template: Record<string, unknown>, original: { arguments: unknown; result: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template)) {
    const ref = typeof v === "string" ? /^\$(result|arguments)(?:\.(.*))?$/.exec(v) : null;
    out[k] = ref ? at(ref[1] === "result" ? original.result : original.arguments, ref[2] ?? "") : v;
  }
  return out;
}

const split = (name: string) => ({ server_id: name.slice(0, name.indexOf(".")), tool: name.slice(name.indexOf(".") + 1) });

/**
 * Undo what `task` (ended, assigned to `agent`) did, per the agent's `compensations`. Returns how
 * many undo calls were made now (0 when there was nothing to undo or it was undone before).
 */
export async function compensate(deps: { store: EventStore; tools: ToolCaller }, agent: WorkspaceAgent, task: TaskRow): Promise<number> {
  const rules = agent.manifest.compensations ?? [];
  if (!rules.length) return 0;
  const events = (await deps.store.readAll({ run_id: task.run_id })).filter((e) => e.task_id === task.id);
  const calls = new Map(events.filter((e): e is StoredEventOf<"tool.call"> => isEvent(e, "tool.call")).map((e) => [e.payload.call_id, e]));
  // Undone: an undo whose outcome is recorded (a call alone was interrupted, and is made again).
  const undone = new Set(
    events.filter((e) => isEvent(e, "tool.result", "tool.error")).map((e) => (e.meta?.compensation as { of_call_id?: string } | undefined)?.of_call_id).filter(Boolean),
  );
  const done: { result: StoredEventOf<"tool.result">; rule: Rule }[] = [];
  for (const e of events) {
    if (!isEvent(e, "tool.result") || e.meta?.compensation) continue;
    const rule = rules.find((r) => r.after === `${e.payload.server_id}.${e.payload.tool}`);
    if (rule && !undone.has(e.payload.call_id)) done.push({ result: e, rule });
  }
  const base = { thread_id: task.thread_id, run_id: task.run_id, task_id: task.id, from: { agent_id: agent.agent_id, role: "worker" }, to: [] };
  for (const { result, rule } of done.reverse()) {
    const of_call_id = result.payload.call_id;
    const { server_id, tool } = split(rule.undo);
    const args = undoArguments(rule.arguments, { arguments: calls.get(of_call_id)?.payload.arguments ?? {}, result: result.payload.result });
    const call_id = `undo-${of_call_id}`;
    const meta = { compensation: { of_call_id, after: rule.after } };
    const key = (part: string) => `compensate:${task.id}:${of_call_id}:${part}`;
    await deps.store.append(makeMessage({ type: "tool.call", ...base, payload: { call_id, server_id, tool, arguments: args }, meta, idempotency_key: key("call") }));
    const r = await deps.tools.callTool({ agent, server_id, tool, arguments: args });
    await deps.store.append(
      r.ok
        ? makeMessage({ type: "tool.result", ...base, payload: { call_id, server_id, tool, result: r.result, duration_ms: r.duration_ms }, meta, idempotency_key: key("result") })
        : makeMessage({
            type: "tool.error",
            ...base,
            payload: { call_id, server_id, tool, code: r.code, message: r.message, retryable: r.retryable, duration_ms: r.duration_ms },
            meta,
            idempotency_key: key("error"),
          }),
    );
  }
  return done.length;
}

/** How far back `compensateEnded` looks for tasks that ended unsuccessfully (ms). */
export const COMPENSATION_WINDOW_MS = 24 * 3600_000;

/**
 * After a restart: compensate every task of `agents` (those with `compensations`) in the
 * channels `thread_ids` that ended in failure, cancel or timeout within COMPENSATION_WINDOW_MS
 * before `now`. What was undone before is not undone again. Returns how many undo calls were made.
 */
export async function compensateEnded(deps: { store: EventStore; tools: ToolCaller }, agents: readonly WorkspaceAgent[], thread_ids: readonly string[], now = Date.now()): Promise<number> {
  const withRules = new Map(agents.filter((a) => a.manifest.compensations?.length).map((a) => [a.agent_id, a]));
  if (!withRules.size) return 0;
  let made = 0;
  for (const task of await deps.store.queries.unsuccessfulTasksSince([...withRules.keys()], thread_ids, new Date(now - COMPENSATION_WINDOW_MS))) {
    made += await compensate(deps, withRules.get(task.assignee!)!, task);
  }
  return made;
}
