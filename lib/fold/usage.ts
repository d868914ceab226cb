/**
 * What a run cost and where its time went, folded from its events (docs/observability.md):
 * `model.usage` events give the tokens and the time in the model, `tool.call` → `tool.result` /
 * `tool.error` the time in tools, `approval.requested` → its decision and a question to the
 * people → its answer the time spent waiting for people. Pure: the server and the browser fold
 * the same events to the same figures, so a replay shows them as of its position (an interval
 * still open counts up to the last event folded).
 *
 * Costs are the price table's (per million tokens, in its currency) times the counts; a call whose
 * model has no price adds its tokens and counts in `unpriced_calls`, never a guessed cost. A fork's
 * copies of earlier events and an import's copies (lib/conversation.ts `isCopy`) were paid for by the original run
 * and are left out.
 */
import { isCopy } from "../conversation";
import type { StoredEvent } from "../protocol/envelope";
import { isEvent } from "../protocol/events";
import { isPeopleRecipient } from "./questions";

/** A model's price in the table's currency per million tokens; `cached_input` defaults to `input`. */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

/** The workspace's prices (workspace.json `prices`), keyed by the model id a `model.usage` names. */
export interface PriceTable {
  currency: string;
  models: Record<string, ModelPrice>;
}

/** Token, cost and time figures of one scope (a run, a task, an agent). Times in ms. */
export interface UsageTotals {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** The priced calls' cost, in the table's currency; null while no call of the scope is priced. */
  cost: number | null;
  /** Calls whose model has no price: their cost is unknown. */
  unpriced_calls: number;
  model_ms: number;
  tool_ms: number;
  people_ms: number;
}

/** A task's figures, with its elapsed time from its request to its end (or to the last event). */
export interface TaskUsage extends UsageTotals {
  agent_id: string | null;
  elapsed_ms: number;
}

/** One line of the run's breakdown: an agent and the models it called. */
export interface AgentUsage extends UsageTotals {
  agent_id: string;
  models: string[];
}

export interface RunUsage {
  run: UsageTotals & { elapsed_ms: number };
  tasks: Map<string, TaskUsage>;
  /** By agent, in the order each first appeared. */
  agents: AgentUsage[];
  /** Models used that have no price, sorted. */
  unpriced_models: string[];
  currency: string;
}

export const EMPTY_PRICES: PriceTable = { currency: "USD", models: {} };

export function emptyTotals(): UsageTotals {
  return { calls: 0, input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cost: null, unpriced_calls: 0, model_ms: 0, tool_ms: 0, people_ms: 0 };
}

/** The cost of one call in the table's currency, or null when `model` has no price. */
export function callCost(prices: PriceTable, model: string, input: number, output: number, cached = 0): number | null {
  const p = prices.models[model];
  if (!p) return null;
  const cachedPrice = p.cached_input ?? p.input;
  return ((input - cached) * p.input + cached * cachedPrice + output * p.output) / 1_000_000;
}

/** Add a call's counts into `t`. */
function addCall(t: UsageTotals, c: { input: number; output: number; cached: number; ms: number; cost: number | null }): void {
  t.calls++;
  t.input_tokens += c.input;
  t.output_tokens += c.output;
  t.cached_input_tokens += c.cached;
  t.model_ms += c.ms;
  if (c.cost === null) t.unpriced_calls++;
  else t.cost = (t.cost ?? 0) + c.cost;
}

const ENDINGS = new Set(["task.result", "task.error", "task.cancel", "task.timeout"]);
const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
const time = (ts: string) => Date.parse(ts);

/** Fold a run's events (ascending by seq) with `prices`. Events of unexpected shape are skipped. */
export function foldUsage(events: readonly StoredEvent[], prices: PriceTable = EMPTY_PRICES): RunUsage {
  const run = emptyTotals();
  const tasks = new Map<string, TaskUsage>();
  const agents = new Map<string, AgentUsage>();
  const models = new Map<string, Set<string>>();
  const unpriced = new Set<string>();
  const taskOpened = new Map<string, number>();
  const taskEnded = new Map<string, number>();
  const openTools = new Map<string, { at: number; task_id: string; agent_id: string }>();
  const openWaits = new Map<string, { at: number; task_id: string }>();
  const live = events.filter((e) => e && typeof e.type === "string" && e.payload && typeof e.payload === "object" && !isCopy(e));
  const first = live.length ? time(live[0]!.ts) : 0;
  const last = live.length ? time(live.at(-1)!.ts) : 0;

  const taskOf = (task_id: string): TaskUsage => {
    let t = tasks.get(task_id);
    if (!t) tasks.set(task_id, (t = { ...emptyTotals(), agent_id: null, elapsed_ms: 0 }));
    return t;
  };
  const agentOf = (agent_id: string): AgentUsage => {
    let a = agents.get(agent_id);
    if (!a) agents.set(agent_id, (a = { ...emptyTotals(), agent_id, models: [] }));
    return a;
  };
  const addTime = (task_id: string, kind: "tool_ms" | "people_ms", ms: number, agent_id?: string | null) => {
    const t = taskOf(task_id);
    t[kind] += ms;
    run[kind] += ms;
    const who = agent_id ?? t.agent_id;
    if (who) agentOf(who)[kind] += ms;
  };

  for (const ev of live) {
    const at = time(ev.ts);
    if (isEvent(ev, "task.request")) {
      if (!taskOpened.has(ev.task_id)) taskOpened.set(ev.task_id, at);
      taskOf(ev.task_id);
    } else if (isEvent(ev, "task.accept")) {
      const t = taskOf(ev.task_id);
      t.agent_id = typeof ev.payload.agent_id === "string" ? ev.payload.agent_id : ev.from.agent_id;
    } else if (ENDINGS.has(ev.type)) {
      if (!taskEnded.has(ev.task_id)) taskEnded.set(ev.task_id, at);
    } else if (isEvent(ev, "model.usage")) {
      const p = ev.payload;
      const input = count(p.input_tokens);
      const output = count(p.output_tokens);
      const cached = Math.min(count(p.cached_input_tokens), input);
      const model = typeof p.model === "string" ? p.model : "unknown";
      const cost = callCost(prices, model, input, output, cached);
      if (cost === null) unpriced.add(model);
      const call = { input, output, cached, ms: count(p.latency_ms), cost };
      const agent_id = ev.from.agent_id;
      const t = taskOf(ev.task_id);
      t.agent_id ??= agent_id;
      addCall(run, call);
      addCall(t, call);
      addCall(agentOf(agent_id), call);
      const used = models.get(agent_id) ?? new Set<string>();
      used.add(model);
      models.set(agent_id, used);
    } else if (isEvent(ev, "tool.call")) {
      openTools.set(String(ev.payload.call_id), { at, task_id: ev.task_id, agent_id: ev.from.agent_id });
    } else if (isEvent(ev, "tool.result", "tool.error")) {
      const open = openTools.get(String(ev.payload.call_id));
      if (open) {
        openTools.delete(String(ev.payload.call_id));
        addTime(open.task_id, "tool_ms", Math.max(0, at - open.at), open.agent_id);
      }
    } else if (isEvent(ev, "approval.requested")) {
      openWaits.set(`approval:${ev.payload.approval_id}`, { at, task_id: ev.task_id });
    } else if (isEvent(ev, "approval.granted", "approval.rejected") || (isEvent(ev, "approval.expired") && ev.payload.outcome === "rejected")) {
      const key = `approval:${ev.payload.approval_id}`;
      const open = openWaits.get(key);
      if (open) {
        openWaits.delete(key);
        addTime(open.task_id, "people_ms", Math.max(0, at - open.at));
      }
    } else if (isEvent(ev, "chat.message")) {
      const p = ev.payload;
      if (p.expects_reply === true && Array.isArray(ev.to) && ev.to.some(isPeopleRecipient)) {
        openWaits.set(`question:${ev.id}`, { at, task_id: ev.task_id });
      }
      const open = typeof p.reply_to === "string" ? openWaits.get(`question:${p.reply_to}`) : undefined;
      if (open) {
        openWaits.delete(`question:${p.reply_to}`);
        addTime(open.task_id, "people_ms", Math.max(0, at - open.at));
      }
    }
    if (ENDINGS.has(ev.type)) {
      // A question the task did not wait for any longer stops counting when the task ends.
      for (const [key, open] of openWaits) {
        if (key.startsWith("question:") && open.task_id === ev.task_id) {
          openWaits.delete(key);
          addTime(open.task_id, "people_ms", Math.max(0, at - open.at));
        }
      }
    }
  }
  // Intervals still open count up to the last event folded (a replay's position).
  for (const open of openTools.values()) addTime(open.task_id, "tool_ms", Math.max(0, last - open.at), open.agent_id);
  for (const open of openWaits.values()) addTime(open.task_id, "people_ms", Math.max(0, last - open.at));
  for (const [task_id, t] of tasks) {
    const from = taskOpened.get(task_id);
    t.elapsed_ms = from === undefined ? 0 : Math.max(0, (taskEnded.get(task_id) ?? last) - from);
  }
  for (const a of agents.values()) a.models = [...(models.get(a.agent_id) ?? [])].sort();
  return {
    run: { ...run, elapsed_ms: Math.max(0, last - first) },
    tasks,
    agents: [...agents.values()],
    unpriced_models: [...unpriced].sort(),
    currency: prices.currency,
  };
}

/** Tokens as people read them: "850", "3.5k", "16.8k", "15k", "240k", "1.2M". */
export function formatTokens(n: number): string {
  const short = (v: number, unit: string) => `${(v < 100 ? v.toFixed(1) : Math.round(v).toString()).replace(/\.0$/, "")}${unit}`;
  if (n < 1000) return String(Math.round(n));
  if (n < 999_950) return short(n / 1000, "k");
  return short(n / 1_000_000, "M");
}

/**
 * A cost as people read it: "$0.42", "$0.0031", "€1.20"; "cost unknown" when nothing is priced;
 * "$0.42 + unpriced" when some calls have no price.
 */
export function formatCost(t: Pick<UsageTotals, "cost" | "unpriced_calls" | "calls">, currency: string): string {
  if (t.cost === null) return t.calls ? "cost unknown" : formatMoney(0, currency);
  const shown = formatMoney(t.cost, currency);
  return t.unpriced_calls ? `${shown} + unpriced` : shown;
}

function formatMoney(amount: number, currency: string): string {
  const digits = amount > 0 && amount < 0.01 ? 4 : 2;
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
  } catch {
    return `${amount.toFixed(digits)} ${currency}`;
  }
}

/** Totals of per-model rows (`RunSummary.usage`, an agent's day) priced with `prices`; times other than the model's are 0. */
export function totalsOfRows(rows: readonly { model: string; calls: number; input_tokens: number; output_tokens: number; cached_input_tokens: number; model_ms: number }[], prices: PriceTable): UsageTotals {
  const t = emptyTotals();
  for (const r of rows) {
    const cost = callCost(prices, r.model, r.input_tokens, r.output_tokens, r.cached_input_tokens);
    t.calls += r.calls;
    t.input_tokens += r.input_tokens;
    t.output_tokens += r.output_tokens;
    t.cached_input_tokens += r.cached_input_tokens;
    t.model_ms += r.model_ms;
    if (cost === null) t.unpriced_calls += r.calls;
    else t.cost = (t.cost ?? 0) + cost;
  }
  return t;
}

/** "12.4k tokens · $0.42" as a run card or badge shows it; "" when no model was called. */
export function usageLine(t: UsageTotals, currency: string): string {
  if (!t.calls) return "";
  return `${formatTokens(t.input_tokens + t.output_tokens)} tokens · ${formatCost(t, currency)}`;
}
