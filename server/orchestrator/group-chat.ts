/**
 * Running an imported AutoGen team's group chat (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "AutoGen: group chats"). A group-chat run is a run whose root task is addressed to
 * `agent:group-chat`, with the team's pattern in `meta.group_chat` (lib/group-chat/turns.ts
 * GroupChatShape). Each turn is one subtask of the root, one at a time:
 *
 *   the root task.request        → task.accept, then the first turn
 *   a turn of an agent           → a routing.decision (`mode: group_chat`, `rule`: round_robin,
 *                                  selector or swarm, and why) and a task.request to that agent
 *                                  with the conversation so far; its task.result is its message
 *                                  (`data.handoff_to` hands a Swarm's turn on)
 *   a turn of the people         → a question to the people in the channel (chat.message to
 *     (UserProxyAgent, a Swarm     `user`, expects_reply) on the root task; the first reply is
 *     handoff to `user`)           the people's message
 *   after each turn              → the termination conditions; once one holds, the root's
 *                                  task.result: the last message, `stop_reason` in AutoGen's words
 *   a turn that fails            → the root's task.error GROUP_CHAT_TURN_FAILED naming the turn
 *
 * A selector turn asks the selector model (`deps.selectorModel`) as AutoGen's SelectorGroupChat does
 * (microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14, autogen_agentchat/teams/_group_chat/
 * _selector_group_chat.py `_select_speaker`): the filled `selector_prompt` as a system message
 * (a user message for models outside the OpenAI family); an answer that mentions no participant
 * or several (or the previous speaker when repeats are not allowed) is appended with AutoGen's
 * feedback and asked again, at most `max_selector_attempts` (default 3) calls; after the last the
 * previous speaker speaks, else the first candidate, and the reason says so. Every selector call
 * appends a `model.usage` on the root task (docs/observability.md), so the run's tokens, cost,
 * budgets, TokenUsageTermination and trace spans count it. The termination condition is applied to
 * the task first, as AutoGen applies it to the start messages: a task that meets it ends the chat
 * before any turn. A chat with neither a termination condition nor `max_turns` ends after
 * DEFAULT_MAX_TURNS turns. Every decision is computed from the run's events and every append
 * carries an idempotency key, so a repeated or recovered reaction stores nothing twice; like the
 * workflow runner it works on the node that runs the agents and picks up unfinished chats on start.
 */
import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { isEvent, makeMessage, newId, type ClutchMessage, type PayloadOf, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { nextSpeaker, readSelection, selectorFallback, selectorPromptRole, terminated, type GroupChatShape, type Participant, type Turn } from "@/lib/group-chat/turns";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { log } from "../log";
import { ORCHESTRATOR } from "../router/router";
import { SerialByKey } from "./serial";

/** Who runs group chats in the log: the assignee of every group-chat run's root task. */
export const GROUP_CHAT_AGENT = { agent_id: "agent:group-chat", role: "orchestrator", display_name: "Group chat" } as const;

/** Turns a chat takes at most when its team names no termination condition and no max_turns. */
export const DEFAULT_MAX_TURNS = 50;

type Request = StoredEventOf<"task.request">;
const ENDINGS = new Set(["task.result", "task.error", "task.timeout", "task.cancel"]);

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

/** Where the chat stands, from the run's events (seq order). */
export interface ChatState {
  turns: Turn[];
  /** A turn under way (an agent's task without an ending, a question without an answer). */
  open: boolean;
  /** A turn that failed: which and why. */
  failed: { turn: number; speaker: string; reason: string } | null;
  ended: boolean;
}

/** The turns of the chat of root `root` in `events`: pure. */
export function chatState(root: Request, events: readonly StoredEvent[]): ChatState {
  const state: ChatState = { turns: [], open: false, failed: null, ended: false };
  if (events.some((e) => e.task_id === root.task_id && ENDINGS.has(e.type))) return { ...state, ended: true };
  const answers = new Map<string, StoredEventOf<"chat.message">>();
  for (const e of events) if (isEvent(e, "chat.message") && typeof e.payload.reply_to === "string" && !answers.has(e.payload.reply_to)) answers.set(e.payload.reply_to, e);
  const turnEvents = events.filter((e) => typeof e.meta?.group_chat_turn === "number" && (isEvent(e, "task.request") || isEvent(e, "chat.message")));
  for (const t of turnEvents) {
    const n = t.meta!.group_chat_turn as number;
    const speaker = String(t.meta!.speaker ?? "");
    if (isEvent(t, "task.request")) {
      const ending = [...events].reverse().find((e) => e.task_id === t.task_id && ENDINGS.has(e.type));
      if (!ending) return { ...state, open: true };
      if (!isEvent(ending, "task.result")) {
        const p = ending.payload as Record<string, unknown>;
        const reason = isEvent(ending, "task.error") ? `${String(p.code)}: ${String(p.message)}` : isEvent(ending, "task.cancel") ? `it was cancelled${p.reason ? `: ${String(p.reason)}` : ""}` : "it timed out";
        return { ...state, failed: { turn: n, speaker, reason } };
      }
      // submit_result's `data` is the result's payload itself (server/agents/actions.ts); a `data` field is read too.
      const data = ending.payload.data as Record<string, unknown> | undefined;
      const handoff = ending.payload.handoff_to ?? data?.handoff_to;
      state.turns.push({ speaker, text: turnText(ending.payload), handoff_to: typeof handoff === "string" ? handoff : null });
    } else {
      const answer = answers.get(t.id);
      if (!answer) return { ...state, open: true };
      state.turns.push({ speaker, text: answer.payload.text });
    }
  }
  return state;
}

export interface GroupChatRunnerDeps {
  store: EventStore;
  tail: EventTail;
  /** The model that picks a SelectorGroupChat's next speaker (called without tools; may throw when there is none). */
  selectorModel: (shape: GroupChatShape) => LanguageModel;
  /** Whether this deployment's agents work in `thread_id`: the chats of other deployments sharing the database are theirs. */
  inScope: (thread_id: string) => boolean;
}

export class GroupChatRunner {
  private unsubscribe: (() => void) | null = null;
  /** Open chats: run id → root task id. */
  private readonly runs = new Map<string, string>();
  private readonly chains = new SerialByKey();

  constructor(private readonly deps: GroupChatRunnerDeps) {}

  /**
   * The root request of a group chat of `shape` for a person's message `ev` in `thread_id`, as
   * the orchestrator opens it (a run of its own; `meta.requested_by` the person).
   */
  static rootRequest(ev: StoredEventOf<"chat.message">, shape: GroupChatShape, team: string, title: string): ClutchMessage {
    return makeMessage({
      type: "task.request",
      thread_id: ev.thread_id,
      run_id: newId("run"),
      task_id: newId("task"),
      parent_task_id: null,
      from: ORCHESTRATOR,
      to: [{ agent_id: GROUP_CHAT_AGENT.agent_id }],
      payload: { title, instructions: ev.payload.text, context_summary: `A ${shape.kind.replace("_", " ")} group chat of ${team} on ${ev.from.display_name ?? ev.from.agent_id}'s request`, input: { message_id: ev.id, from: ev.from } },
      meta: { group_chat: shape, team, requested_by: ev.from.agent_id },
      idempotency_key: `open-run:${ev.id}`,
    });
  }

  /** Follow the log and pick up the chats that have not ended. */
  async start(): Promise<void> {
    this.unsubscribe = this.deps.tail.subscribe((ev) => this.onEvent(ev));
    for (const t of await this.deps.store.queries.unfinishedTasks()) {
      if (t.assignee === GROUP_CHAT_AGENT.agent_id && !t.parent_task_id) this.track(t.run_id, t.id);
    }
  }

  /** Stop following; reactions in flight finish. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.chains.settled();
  }

  private onEvent(ev: StoredEvent): void {
    if (isEvent(ev, "task.request") && ev.to[0]?.agent_id === GROUP_CHAT_AGENT.agent_id && !ev.parent_task_id && groupChatOf(ev)) return this.track(ev.run_id, ev.task_id);
    const root = this.runs.get(ev.run_id);
    if (!root) return;
    if (ENDINGS.has(ev.type) || (isEvent(ev, "chat.message") && typeof ev.payload.reply_to === "string")) this.track(ev.run_id, root);
  }

  /** Advance the chat of run `run_id`, after whatever it is doing now. */
  private track(run_id: string, task_id: string): void {
    this.runs.set(run_id, task_id);
    this.chains.run(
      run_id,
      () => this.advance(run_id, task_id),
      (err) => log.error({ err, run_id }, "group chat: a turn could not be taken; it is tried again at the next event or start"),
    );
  }

  private async advance(run_id: string, task_id: string): Promise<void> {
    const { store } = this.deps;
    const events = await store.readAll({ run_id });
    const root = events.find((e): e is Request => isEvent(e, "task.request") && e.task_id === task_id);
    const shape = root && groupChatOf(root);
    if (!root || !shape || !this.deps.inScope(root.thread_id)) return void this.runs.delete(run_id);
    const state = chatState(root, events);
    if (state.ended) return void this.runs.delete(run_id);
    const at = { thread_id: root.thread_id, run_id, task_id, parent_task_id: null, from: GROUP_CHAT_AGENT };
    const key = (part: string) => `group-chat:${task_id}:${part}`;
    const out: ClutchMessage[] = [];
    if (!events.some((e) => isEvent(e, "task.accept") && e.task_id === task_id)) {
      const names = shape.participants.filter((p) => p.kind !== "left_out").map((p) => p.name);
      out.push(makeMessage({ type: "task.accept", ...at, to: [root.from], payload: { agent_id: GROUP_CHAT_AGENT.agent_id, note: `${shape.kind.replace("_", " ")} group chat: ${names.join(", ")}` }, idempotency_key: key("accept") }));
    }
    if (state.open) {
      if (out.length) await store.append(out);
      return;
    }
    const task = root.payload.instructions ?? root.payload.title ?? "";
    if (state.failed) {
      const f = state.failed;
      out.push(makeMessage({ type: "task.error", ...at, to: [root.from], payload: { code: "GROUP_CHAT_TURN_FAILED", message: `Turn ${f.turn} (${f.speaker}) failed: ${f.reason}`, retryable: false, details: { turn: f.turn, speaker: f.speaker } }, idempotency_key: key("error") }));
      await store.append(out);
      return void this.runs.delete(run_id);
    }
    const stop = this.stopReason(shape, state.turns, root, events);
    if (stop) {
      const last = state.turns.at(-1);
      out.push(
        makeMessage({
          type: "task.result",
          ...at,
          to: [root.from],
          payload: {
            summary: last ? `${last.speaker}: ${firstLine(last.text)}` : stop,
            ...(last ? { report_markdown: last.text } : {}),
            stop_reason: stop,
            data: { stop_reason: stop, turns: state.turns.length, messages: state.turns.map((t) => ({ source: t.speaker, content: t.text })) },
          },
          idempotency_key: key("result"),
        }),
      );
      await store.append(out);
      return void this.runs.delete(run_id);
    }
    const n = state.turns.length + 1;
    let next = nextSpeaker(shape, task, state.turns);
    if (next.kind === "select") next = await this.select(shape, root, events, state.turns, next.candidates, next.prompt, key);
    if (next.kind === "none") {
      out.push(makeMessage({ type: "task.error", ...at, to: [root.from], payload: { code: "GROUP_CHAT_STOPPED", message: `The group chat cannot go on: ${next.reason}`, retryable: false, details: { turn: n } }, idempotency_key: key("error") }));
      await store.append(out);
      return void this.runs.delete(run_id);
    }
    out.push(...this.turn(shape, root, state.turns, n, next.speaker, next.rule, key));
    await store.append(out);
  }

  /** AutoGen's stop reason once a termination condition holds, or the turn cap. */
  private stopReason(shape: GroupChatShape, turns: Turn[], root: Request, events: readonly StoredEvent[]): string | null {
    let prompt = 0;
    let completion = 0;
    const tools: string[] = [];
    let agentEvents = 0;
    for (const e of events) {
      if (isEvent(e, "model.usage")) {
        prompt += e.payload.input_tokens;
        completion += e.payload.output_tokens;
      } else if (isEvent(e, "tool.call")) {
        tools.push(e.payload.tool);
        agentEvents++;
      } else if (isEvent(e, "tool.result", "tool.error")) agentEvents++;
    }
    const facts = { task: root.payload.instructions ?? "", started_at_ms: Date.parse(root.ts), now_ms: Date.now(), tokens: { prompt, completion }, tool_calls: tools, agent_events: agentEvents };
    const reason = terminated(shape.termination, turns, facts);
    if (reason) return reason;
    const max = shape.max_turns ?? (shape.termination ? null : DEFAULT_MAX_TURNS);
    return max !== null && turns.length >= max ? `Maximum number of turns ${max} reached.` : null;
  }

  /**
   * Ask the selector model as AutoGen's `_select_speaker` does (see the module doc) and take the
   * speaker its answer names; each answered call appends its `model.usage` at once.
   */
  private async select(
    shape: GroupChatShape,
    root: Request,
    events: readonly StoredEvent[],
    turns: Turn[],
    candidates: Participant[],
    prompt: string,
    key: (part: string) => string,
  ): Promise<{ kind: "speak"; speaker: Participant; rule: string }> {
    const n = turns.length + 1;
    const attempts = Math.max(1, shape.max_selector_attempts ?? 3);
    const previous = turns.at(-1)?.speaker ?? null;
    const answers: string[] = [];
    let step = events.filter((e) => isEvent(e, "model.usage") && e.task_id === root.task_id).length;
    let messages: ModelMessage[] | null = null;
    for (let i = 1; i <= attempts; i++) {
      let answer: string;
      try {
        const model = this.deps.selectorModel(shape);
        messages ??= [{ role: selectorPromptRole(typeof model === "string" ? "gateway" : model.provider), content: prompt }];
        const started = performance.now();
        const result = await generateText({ model, messages, maxRetries: 2, allowSystemInMessages: true });
        answer = result.text;
        const usage = selectorUsage(model, result, performance.now() - started, ++step);
        await this.deps.store.append([
          makeMessage({ type: "model.usage", thread_id: root.thread_id, run_id: root.run_id, task_id: root.task_id, from: GROUP_CHAT_AGENT, to: [], payload: usage, meta: { group_chat_turn: n, selector_attempt: i }, idempotency_key: key(`turn:${n}:select:${i}:usage`) }),
        ]);
      } catch (err) {
        answers.push(`(the selector model failed: ${(err as Error).message})`);
        continue;
      }
      answers.push(answer);
      messages.push({ role: "assistant", content: answer });
      const verdict = readSelection(answer, shape, candidates, previous);
      if (verdict.kind === "chosen") {
        const tries = i > 1 ? ` on attempt ${i} of ${attempts}` : "";
        return { kind: "speak", speaker: verdict.speaker, rule: `selector: the selector model chose ${verdict.speaker.name}${tries} ("${firstLine(answer).slice(0, 80)}")` };
      }
      messages.push({ role: "user", content: verdict.feedback });
    }
    const fallback = selectorFallback(shape, candidates, previous);
    const why = previous !== null && fallback.name === previous ? "the previous speaker" : "the first candidate";
    return { kind: "speak", speaker: fallback, rule: `selector: the selector model named no single valid participant in ${attempts} attempts ("${firstLine(answers.at(-1) ?? "").slice(0, 80)}"); ${fallback.name}, ${why}, speaks` };
  }

  /** The events of turn `n` by `speaker`. */
  private turn(shape: GroupChatShape, root: Request, turns: Turn[], n: number, speaker: Participant, rule: string, key: (part: string) => string): ClutchMessage[] {
    const at = { thread_id: root.thread_id, run_id: root.run_id };
    const meta = { group_chat_turn: n, speaker: speaker.name };
    const history = [`user: ${root.payload.instructions ?? root.payload.title ?? ""}`, ...turns.map((t) => `${t.speaker}: ${t.text}`)].join("\n\n");
    if (speaker.kind === "people" || !speaker.agent_id) {
      const handoff = turns.at(-1)?.handoff_to ? shape.handoffs.find((h) => h.from === turns.at(-1)!.speaker && h.target === speaker.name) : undefined;
      const text = handoff?.message ?? (turns.length ? `${turns.at(-1)!.speaker} said: ${firstLine(turns.at(-1)!.text)}\n\nIt is your turn in the group chat (turn ${n}). Reply to go on.` : `It is your turn in the group chat (turn ${n}). Reply to go on.`);
      return [
        makeMessage({
          type: "chat.message",
          ...at,
          task_id: root.task_id,
          parent_task_id: null,
          from: GROUP_CHAT_AGENT,
          to: [{ agent_id: "user", role: "human" }],
          payload: { text, expects_reply: true },
          meta,
          idempotency_key: key(`turn:${n}:ask`),
        }),
      ];
    }
    const agent_id = speaker.agent_id;
    const handoffs = shape.kind === "swarm" ? shape.handoffs.filter((h) => h.from === speaker.name) : [];
    const instructions = [
      `You are ${speaker.name} in a ${shape.kind.replace("_", " ")} group chat with ${shape.participants.filter((p) => p.kind !== "left_out" && p.name !== speaker.name).map((p) => p.name).join(", ") || "no one else"}.`,
      `The conversation so far:\n\n${history}`,
      "Say your next message in the chat: submit_result with your message as its summary (or answer in plain text).",
      handoffs.length ? `To hand the conversation to another participant, submit_result with data.handoff_to set to one of: ${handoffs.map((h) => `${h.target}${h.description ? ` (${h.description})` : ""}`).join(", ")}.` : "",
    ]
      .filter(Boolean)
      .join("\n\n");
    const task_id = newId("task");
    return [
      makeMessage({
        type: "routing.decision",
        ...at,
        task_id,
        parent_task_id: root.task_id,
        from: ORCHESTRATOR,
        to: [],
        payload: { selected: agent_id, candidates: shape.participants.flatMap((p) => (p.agent_id ? [p.agent_id] : [])), reason: rule, scores: { [agent_id]: 1 }, mode: "group_chat", rule: shape.kind },
        idempotency_key: key(`turn:${n}:routing`),
      }),
      makeMessage({
        type: "task.request",
        ...at,
        task_id,
        parent_task_id: root.task_id,
        from: GROUP_CHAT_AGENT,
        to: [{ agent_id }],
        payload: { title: `Turn ${n}: ${speaker.name}`, instructions, context_summary: `Turn ${n} of the group chat on: ${root.payload.title ?? ""}` },
        meta,
        idempotency_key: key(`turn:${n}:request`),
      }),
    ];
  }
}

function firstLine(text: string): string {
  return (text.split("\n").find((l) => l.trim()) ?? "").trim();
}

/**
 * The `model.usage` payload of one selector call (docs/observability.md; as server/agents/runner.ts
 * `usageOf` builds an agent's): the AI SDK's token counts (missing counts as 0), `latency_ms` the
 * call's wall time in ms, the model id the provider answered with (else the one asked for), `step`
 * the chat's selector call from 1.
 */
function selectorUsage(model: LanguageModel, result: Awaited<ReturnType<typeof generateText>>, latency_ms: number, step: number): PayloadOf<"model.usage"> {
  const u = result.usage;
  const asked = typeof model === "string" ? { modelId: model, provider: undefined } : model;
  const cached = u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens;
  const reasoning = u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens;
  return {
    model: result.response?.modelId || asked.modelId,
    ...(asked.provider ? { provider: asked.provider } : {}),
    input_tokens: u.inputTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    ...(cached ? { cached_input_tokens: cached } : {}),
    ...(reasoning ? { reasoning_tokens: reasoning } : {}),
    latency_ms: Math.round(latency_ms),
    finish_reason: result.finishReason,
    step,
  };
}
