/**
 * Follow-ups (docs/channels.md "Follow-ups"; Clutch Protocol §1.3: a thread spans the runs and
 * tasks of one conversation). A person who replies to an agent's message or result asks that
 * agent to carry on: the reply becomes a new root task of the same run, whose task.request
 * names the event it follows in `meta.follows`. The agent's context for it is the conversation
 * so far, folded here from the run's events, never kept in a second store. Pure; shared by the
 * server (the runner's prompt) and the browser.
 */
import type { Participant, StoredEvent } from "../protocol";

/** One turn of the conversation so far, as a person would retell it. */
export interface HistoryEntry {
  seq: number;
  event_id: string;
  task_id: string;
  /** request: a person's request; question: an agent asks people; answer / message: a person's or an agent's words; result / error: how a request ended. */
  kind: "request" | "question" | "answer" | "message" | "result" | "error";
  from: Participant;
  text: string;
  /** A result's figures (its payload without the texts), kept whole in the entry; the rendering may summarise them. */
  data?: Record<string, unknown>;
}

const isPerson = (id: string) => id === "user" || id.startsWith("user:");

/** The event a task.request follows (`meta.follows`), or null for a request that starts fresh. */
export function followsOf(ev: Pick<StoredEvent, "type" | "meta">): string | null {
  const f = ev.type === "task.request" ? ev.meta?.follows : undefined;
  return typeof f === "string" && f ? f : null;
}

/**
 * The conversation between people and agents in `events` (one run, seq order), for the
 * follow-up task `task_id`: every root request, the messages between people and agents, and
 * how each root task ended, up to (not including) the follow-up's own events. Agent-to-agent
 * traffic and tool calls are left out: they are the machinery, not the conversation.
 */
export function conversationHistory(events: readonly StoredEvent[], task_id: string): HistoryEntry[] {
  const roots = new Set<string>();
  const out: HistoryEntry[] = [];
  for (const ev of events) {
    if (ev.task_id === task_id) break;
    const base = { seq: ev.seq, event_id: ev.id, task_id: ev.task_id, from: ev.from };
    if (ev.type === "task.request" && !ev.parent_task_id && !roots.has(ev.task_id)) {
      roots.add(ev.task_id);
      // A follow-up's request repeats the person's message, which is already in the history.
      if (followsOf(ev)) continue;
      const input = (ev.payload.input ?? {}) as { from?: Participant };
      const text = String(ev.payload.instructions ?? ev.payload.title ?? "");
      if (text) out.push({ ...base, kind: "request", from: input.from ?? ev.from, text });
    } else if (ev.type === "chat.message") {
      const p = ev.payload;
      const fromPerson = ev.from.role === "human" || isPerson(ev.from.agent_id);
      const toPeople = ev.to.length === 0 || ev.to.some((t) => isPerson(t.agent_id));
      if (fromPerson && !roots.has(ev.task_id) && !p.reply_to) continue; // the request itself (its task.request follows)
      if (fromPerson) out.push({ ...base, kind: p.reply_to && !ev.meta?.follows ? "answer" : "message", text: String(p.text) });
      else if (toPeople) out.push({ ...base, kind: p.expects_reply ? "question" : "message", text: String(p.text) });
    } else if ((ev.type === "task.result" || ev.type === "task.error") && roots.has(ev.task_id)) {
      if (ev.type === "task.error") {
        out.push({ ...base, kind: "error", text: `${String(ev.payload.code)}: ${String(ev.payload.message)}` });
        continue;
      }
      const { summary, report_markdown, ...data } = ev.payload as Record<string, unknown>;
      const text = typeof report_markdown === "string" && report_markdown ? report_markdown : String(summary ?? "");
      out.push({ ...base, kind: "result", text, ...(Object.keys(data).length ? { data } : {}) });
    }
  }
  return out;
}

/**
 * `value` as JSON of at most `max` characters, shortened by whole items: arrays keep their
 * first items and say how many were left out, nested levels past the depth become a note.
 * Never cut in the middle of a value, so a model always reads valid JSON.
 */
export function compactJson(value: unknown, max: number): string {
  const shorten = (v: unknown, items: number, depth: number): unknown => {
    if (Array.isArray(v)) {
      if (depth <= 0) return `(${v.length} items)`;
      const kept = v.slice(0, items).map((x) => shorten(x, items, depth - 1));
      return v.length > items ? [...kept, `(${v.length - items} more items left out)`] : kept;
    }
    if (v && typeof v === "object") {
      if (depth <= 0) return `(object with ${Object.keys(v).length} fields)`;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x, items, depth - 1)]));
    }
    return typeof v === "string" && v.length > 400 ? `${v.slice(0, 400)}… (${v.length - 400} characters left out)` : v;
  };
  const whole = JSON.stringify(value);
  if (whole.length <= max) return whole;
  for (const [items, depth] of [[20, 6], [10, 5], [5, 4], [3, 3], [1, 2]] as const) {
    const s = JSON.stringify(shorten(value, items, depth));
    if (s.length <= max) return s;
  }
  return JSON.stringify(value && typeof value === "object" ? { fields: Object.keys(value) } : String(value).slice(0, max));
}

const who = (p: Participant) => (p.display_name ? `${p.display_name} (${p.agent_id})` : p.agent_id);

const HEAD: Record<HistoryEntry["kind"], string> = {
  request: "asked",
  question: "asked the people",
  answer: "answered",
  message: "said",
  result: "delivered",
  error: "could not finish",
};

/**
 * The history as text for a model, within `budget` characters (default 24,000): the newest
 * turns whole; older results' data summarised (compactJson), then older texts shortened at a
 * line break with a note of what was left out. Empty string for no history.
 */
export function renderHistory(entries: readonly HistoryEntry[], budget = 24_000): string {
  if (!entries.length) return "";
  const render = (e: HistoryEntry, dataMax: number, textMax: number) => {
    let text = e.text;
    if (text.length > textMax) {
      const cut = text.lastIndexOf("\n", textMax);
      const at = cut > textMax / 2 ? cut : textMax;
      text = `${text.slice(0, at)}\n(… ${text.length - at} more characters left out)`;
    }
    const data = e.data && dataMax > 0 ? `\nData: ${compactJson(e.data, dataMax)}` : "";
    return `[#${e.seq}] ${who(e.from)} ${HEAD[e.kind]}:\n${text}${data}`;
  };
  const head = "The conversation so far in this thread (oldest first). The new message below follows it: use what was asked, agreed and found here.";
  for (const [dataMax, textMax] of [[8_000, 20_000], [3_000, 8_000], [1_000, 3_000], [0, 1_200], [0, 400]] as const) {
    // The newest entry keeps the larger allowance: it is what the person is replying to.
    const parts = entries.map((e, i) => (i === entries.length - 1 ? render(e, Math.max(dataMax, 3_000), Math.max(textMax, 8_000)) : render(e, dataMax, textMax)));
    const text = [head, ...parts].join("\n\n");
    if (text.length <= budget) return text;
  }
  // Still too long: keep the newest turns that fit.
  const kept: string[] = [];
  let size = head.length;
  for (let i = entries.length - 1; i >= 0; i--) {
    const part = render(entries[i]!, 0, 400);
    if (size + part.length + 2 > budget) break;
    kept.unshift(part);
    size += part.length + 2;
  }
  return [head, `(${entries.length - kept.length} earlier turns left out)`, ...kept].join("\n\n");
}
