/**
 * One line per event for the replay timeline (every event of the run, under the graph): who,
 * what, and a short text, without rendering the full event. Agents are named as people read them,
 * by their cards' display names (docs/channels.md "One name per agent"), through the `nameOf`
 * the caller passes (components/events/use-sender-name.ts `useNameOf`).
 */
import { actorOf, type StoredEvent } from "@/lib/protocol";

/** The name a person reads for a principal id (`agent:pm-1` → "Project Manager"). */
export type NameOf = (id: string) => string;

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v.trim() : null;
}

function num(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "?";
}

function oneLine(s: string, max = 140): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Coarse family of an event type, for its colour in the timeline. */
export type EventFamily = "chat" | "task" | "tool" | "routing" | "agent" | "error" | "other";

/** The family of an event (a failure is "error" whatever its type). */
export function familyOf(ev: StoredEvent): EventFamily {
  const t = ev.type;
  if (t === "task.error" || t === "tool.error" || t === "routing.failure" || t === "task.timeout") return "error";
  if (t.startsWith("chat.")) return "chat";
  if (t.startsWith("task.")) return "task";
  if (t.startsWith("tool.")) return "tool";
  if (t.startsWith("routing.")) return "routing";
  if (t.startsWith("agent.")) return "agent";
  return "other";
}

/**
 * A short text for the event: the message, the task title, the tool, the routing choice; the
 * agents it names read by `nameOf` ("Analyze sales → Analyst Agent").
 */
export function summarize(ev: StoredEvent, nameOf: NameOf): string {
  // Read field by field as unknown, whatever the type: one line must never fail.
  const p: Record<string, unknown> = ev.payload ?? {};
  switch (ev.type) {
    case "chat.message":
    case "chat.system":
      return oneLine(str(p.text) ?? "");
    case "task.request":
      return oneLine(`${typeof ev.meta?.review_of === "string" ? "Review: " : ""}${str(p.title) ?? str(p.instructions) ?? "new task"}${ev.to.length ? ` → ${ev.to.map((t) => nameOf(t.agent_id)).join(", ")}` : ""}`);
    case "task.accept":
      return `accepted by ${nameOf(str(p.agent_id) ?? actorOf(ev))}`;
    case "task.progress":
      return oneLine(
        p.status === "in_review"
          ? `submitted for review${str(p.message) ? `: ${str(p.message)}` : ""}`
          : `${str(p.message) ?? "progress"}${typeof p.percent === "number" ? ` (${Math.round(p.percent)}%)` : ""}`,
      );
    case "task.result":
      if (ev.payload_type === "review.feedback.v1" && str(p.decision)) return `review: ${str(p.decision)}`;
      return oneLine(str(p.summary) ?? str(p.text) ?? str(p.title) ?? "result");
    case "task.error":
      return oneLine(`${str(p.code) ?? "error"}: ${str(p.message) ?? ""}`);
    case "task.cancel":
      return oneLine(str(p.reason) ?? "cancelled");
    case "task.timeout":
      return oneLine(str(p.message) ? `timed out: ${str(p.message)}` : "timed out");
    case "tool.call":
      return `${ev.meta?.compensation ? "undo: " : ""}${str(p.server_id) ? `${str(p.server_id)} · ` : ""}${str(p.tool) ?? "tool"}`;
    case "tool.result":
      return `${str(p.tool) ?? "tool"}${typeof p.duration_ms === "number" ? ` · ${Math.round(p.duration_ms)} ms` : ""}`;
    case "tool.error":
      return oneLine(`${str(p.tool) ?? "tool"} · ${str(p.code) ?? "error"}: ${str(p.message) ?? ""}`);
    case "routing.decision":
      return oneLine(`→ ${str(p.selected) ? nameOf(str(p.selected)!) : "?"}: ${str(p.reason) ?? ""}`);
    case "routing.failure":
      return oneLine(`no agent: ${str(p.reason) ?? ""}`);
    case "model.usage":
      return oneLine(`${str(p.model) ?? "model"} · ${num(p.input_tokens)} in, ${num(p.output_tokens)} out · ${num(p.latency_ms)} ms`);
    case "approval.requested":
    case "approval.granted":
    case "approval.rejected":
    case "approval.expired": {
      const by = str(p.by);
      // The decider by name: the decision is theirs, so its sender carries their profile name.
      const who = by ? (ev.from.agent_id === by && ev.from.display_name ? ev.from.display_name : nameOf(by)) : null;
      const what = ev.type.slice("approval.".length);
      return oneLine(`${what}${who ? ` by ${who}` : ""}${str(p.reason) ? `: ${str(p.reason)}` : str(p.comment) ? `: ${str(p.comment)}` : ""}`);
    }
    default: {
      // Other types (policy, approvals, adapters): the first telling text field, else the JSON.
      const text = ["reason", "summary", "message", "text", "decision", "outcome", "status"].map((k) => str(p[k])).find(Boolean);
      return oneLine(text ?? JSON.stringify(p).slice(0, 200));
    }
  }
}
