/**
 * Where a group chat stands, read from its run's events (docs/adapters.md "Group chats"): the root
 * request's shape, the turns finished in the order they finished, the turns under way or failed.
 * Pure; shared by the group-chat runner (./group-chat.ts) and the Magentic-One orchestrator
 * (./magentic-one.ts).
 */
import { isEvent, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { GroupChatShape, Turn } from "@/lib/group-chat/turns";

/** Who runs group chats in the log: the assignee of every group-chat run's root task. */
export const GROUP_CHAT_AGENT = { agent_id: "agent:group-chat", role: "orchestrator", display_name: "Group chat" } as const;

/** Turns a chat takes at most when its team names no termination condition and no max_turns. */
export const DEFAULT_MAX_TURNS = 50;

export type Request = StoredEventOf<"task.request">;
export const ENDINGS = new Set(["task.result", "task.error", "task.timeout", "task.cancel"]);

/** The shape a root request carries, or null when it is not a group chat's. */
export function groupChatOf(root: StoredEvent): GroupChatShape | null {
  const g = root.meta?.group_chat as GroupChatShape | undefined;
  return isEvent(root, "task.request") && g && Array.isArray(g.participants) ? g : null;
}

/** A turn's message: the result's full text (a report before its summary), else its summary. */
function turnText(payload: Record<string, unknown>): string {
  for (const k of ["report_markdown", "text", "answer", "summary"]) {
    const v = payload[k];
    if (typeof v === "string" && v.trim()) return v;
  }
  return "";
}

/** A finished turn: who spoke and what, its number, when it finished, and the batch it started with. */
export interface ChatTurn extends Turn {
  /** The turn's number (`meta.group_chat_turn`), from 1 in the order the turns were asked for. */
  n: number;
  /** The seq of the event that finished it (its task's result, or the people's answer). */
  end_seq: number;
  /** The number of the first turn of the batch it started with (GraphFlow starts several at once; else its own). */
  batch: number;
}

/** Where the chat stands, from the run's events (seq order). */
export interface ChatState {
  /** The finished turns, in the order they finished. */
  turns: ChatTurn[];
  /** How many turns were asked for, finished or not. */
  requested: number;
  /** A turn under way (an agent's task without an ending, a question without an answer). */
  open: boolean;
  /** A turn that failed: which and why. */
  failed: { turn: number; speaker: string; reason: string } | null;
  ended: boolean;
}

/** The turns of the chat of root `root` in `events`: pure. */
export function chatState(root: Request, events: readonly StoredEvent[]): ChatState {
  const state: ChatState = { turns: [], requested: 0, open: false, failed: null, ended: false };
  if (events.some((e) => e.task_id === root.task_id && ENDINGS.has(e.type))) return { ...state, ended: true };
  const answers = new Map<string, StoredEventOf<"chat.message">>();
  const endings = new Map<string, StoredEvent>();
  for (const e of events) {
    if (isEvent(e, "chat.message") && typeof e.payload.reply_to === "string" && !answers.has(e.payload.reply_to)) answers.set(e.payload.reply_to, e);
    if (ENDINGS.has(e.type)) endings.set(e.task_id, e); // the last ending of each task
  }
  const turnEvents = events.filter((e) => typeof e.meta?.group_chat_turn === "number" && (isEvent(e, "task.request") || isEvent(e, "chat.message")));
  for (const t of turnEvents) {
    const n = t.meta!.group_chat_turn as number;
    const batch = typeof t.meta!.group_chat_batch === "number" ? t.meta!.group_chat_batch : n;
    const speaker = String(t.meta!.speaker ?? "");
    state.requested++;
    if (isEvent(t, "task.request")) {
      const ending = endings.get(t.task_id);
      if (!ending) {
        state.open = true;
        continue;
      }
      if (!isEvent(ending, "task.result")) {
        const p = ending.payload as Record<string, unknown>;
        const reason = isEvent(ending, "task.error") ? `${String(p.code)}: ${String(p.message)}` : isEvent(ending, "task.cancel") ? `it was cancelled${p.reason ? `: ${String(p.reason)}` : ""}` : "it timed out";
        state.failed ??= { turn: n, speaker, reason };
        continue;
      }
      // submit_result's `data` is the result's payload itself (server/agents/actions.ts); a `data` field is read too.
      const data = ending.payload.data as Record<string, unknown> | undefined;
      const handoff = ending.payload.handoff_to ?? data?.handoff_to;
      state.turns.push({ speaker, text: turnText(ending.payload), handoff_to: typeof handoff === "string" ? handoff : null, n, end_seq: ending.seq, batch });
    } else {
      const answer = answers.get(t.id);
      if (!answer) {
        state.open = true;
        continue;
      }
      state.turns.push({ speaker, text: answer.payload.text, n, end_seq: answer.seq, batch });
    }
  }
  state.turns.sort((a, b) => a.end_seq - b.end_seq);
  return state;
}

/** A pattern's name in sentences. */
const PATTERN_NAMES: Record<string, string> = { round_robin: "round robin", selector: "selector", swarm: "swarm", graph_flow: "GraphFlow", magentic_one: "Magentic-One" };
export const patternName = (kind: string) => PATTERN_NAMES[kind] ?? kind.replace("_", " ");

/** What one advance of a chat works with: the root, the shape, the run's events and the chat's state. */
export interface ChatStep {
  root: Request;
  shape: GroupChatShape;
  events: readonly StoredEvent[];
  /** How many model calls the chat has made so far (its `model.usage` events on the root task). */
  calls: number;
  state: ChatState;
  /** The idempotency key of `part` of this chat. */
  key: (part: string) => string;
}

