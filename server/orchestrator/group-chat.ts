/**
 * Running an imported AutoGen team's group chat (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "Group chats"). A group-chat run is a run whose root task is addressed to `agent:group-chat`,
 * with the team's pattern in `meta.group_chat` (lib/group-chat/turns.ts GroupChatShape). Each turn
 * is one subtask of the root (GraphFlow starts the turns of a batch together):
 *
 *   the root task.request        → task.accept, then the first turn
 *   a turn of an agent           → a routing.decision (`mode: group_chat`, `rule`: round_robin,
 *                                  selector, swarm, graph_flow or magentic_one, and why) and a
 *                                  task.request to that agent with the conversation so far; its
 *                                  task.result is its message (`data.handoff_to` hands a Swarm's turn on)
 *   a turn of the people         → a question to the people in the channel (chat.message to
 *     (UserProxyAgent, a Swarm     `user`, expects_reply) on the root task; the first reply is
 *     handoff to `user`)           the people's message
 *   after each turn (GraphFlow:  → the termination conditions; once one holds, the root's
 *     each batch)                  task.result: the last message, `stop_reason` in AutoGen's words
 *   a turn that fails            → the root's task.error GROUP_CHAT_TURN_FAILED naming the turn
 *
 * Who speaks next: round robin, selector and swarm as lib/group-chat/turns.ts decides, GraphFlow as
 * lib/group-chat/graph-flow.ts replays AutoGen's graph, MagenticOne by its orchestrator
 * (./magentic-one.ts). A selector turn asks the team's model client (`deps.teamModel`) as AutoGen's
 * SelectorGroupChat does (microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14,
 * autogen_agentchat/teams/_group_chat/_selector_group_chat.py `_select_speaker`): the filled
 * `selector_prompt` as a system message (a user message for models outside the OpenAI family); an
 * answer that mentions no participant or several (or the previous speaker when repeats are not
 * allowed) is appended with AutoGen's feedback and asked again, at most `max_selector_attempts`
 * (default 3) calls; after the last the previous speaker speaks, else the first candidate, and the
 * reason says so. Every call of the team's model appends a `model.usage` on the root task
 * (docs/observability.md), so the run's tokens, cost, budgets, TokenUsageTermination and trace
 * spans count it. The termination condition is applied to the task first, as AutoGen applies it to
 * the start messages: a task that meets it ends the chat before any turn. A chat with neither a
 * termination condition nor `max_turns` ends after DEFAULT_MAX_TURNS turns. Every decision is
 * computed from the run's events and every append carries an idempotency key, so a repeated or
 * recovered reaction stores nothing twice; like the workflow runner it works on the node that runs
 * the agents and picks up unfinished chats on start.
 */
import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { isEvent, makeMessage, newId, type ClutchMessage, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import { nextSpeaker, readSelection, selectorFallback, selectorPromptRole, speakers, terminated, type ChatFacts, type GroupChatShape, type Participant } from "@/lib/group-chat/turns";
import { graphNext } from "@/lib/group-chat/graph-flow";
import { modelUsage } from "../usage/model-usage";
import { advanceMagentic, type MagenticDeps } from "./magentic-one";
import { chatState, DEFAULT_MAX_TURNS, ENDINGS, GROUP_CHAT_AGENT, groupChatOf, patternName, type ChatStep, type Request } from "./group-chat-state";
import type { EventStore } from "../events/store";
import type { EventTail } from "../events/tail";
import { log } from "../log";
import { ORCHESTRATOR } from "../router/router";
import { SerialByKey } from "./serial";
import { assign, type Assignment } from "./assign";

export interface GroupChatRunnerDeps {
  store: EventStore;
  tail: EventTail;
  /**
   * The team's own model client for the chat in `thread_id` (SelectorGroupChat's selector, the
   * MagenticOne orchestrator); called without tools, may throw when there is none.
   */
  teamModel: (thread_id: string, shape: GroupChatShape) => LanguageModel;
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
      payload: { title, instructions: ev.payload.text, context_summary: `A ${patternName(shape.kind)} group chat of ${team} on ${ev.from.display_name ?? ev.from.agent_id}'s request`, input: { message_id: ev.id, from: ev.from } },
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
    const calls = events.filter((e) => isEvent(e, "model.usage") && e.task_id === task_id).length;
    const step: ChatStep = { root, shape, events, state, calls, key: (part) => `group-chat:${task_id}:${part}` };
    if (!events.some((e) => isEvent(e, "task.accept") && e.task_id === task_id)) {
      const names = speakers(shape).map((p) => p.name);
      await store.append([makeMessage({ type: "task.accept", ...this.at(root), to: [root.from], payload: { agent_id: GROUP_CHAT_AGENT.agent_id, note: `${patternName(shape.kind)} group chat: ${names.join(", ")}` }, idempotency_key: step.key("accept") })]);
    }
    if (state.open) return;
    if (state.failed) {
      const f = state.failed;
      await this.fail(step, "GROUP_CHAT_TURN_FAILED", `Turn ${f.turn} (${f.speaker}) failed: ${f.reason}`, { turn: f.turn, speaker: f.speaker });
      return void this.runs.delete(run_id);
    }
    const ended = shape.kind === "magentic_one" ? await advanceMagentic(step, this.magenticDeps(step)) : await this.advanceTurns(step);
    if (ended) this.runs.delete(run_id);
  }

  /** Where the chat's own events go: the root task, from Group chat. */
  private at(root: Request) {
    return { thread_id: root.thread_id, run_id: root.run_id, task_id: root.task_id, parent_task_id: null, from: GROUP_CHAT_AGENT };
  }

  /** End the chat with the root's task.error `code`. */
  private async fail(step: ChatStep, code: string, message: string, details: Record<string, unknown>): Promise<void> {
    await this.deps.store.append([makeMessage({ type: "task.error", ...this.at(step.root), to: [step.root.from], payload: { code, message, retryable: false, details }, idempotency_key: step.key("error") })]);
  }

  /** End the chat with the root's task.result: `report` (else the last turn's message) and AutoGen's stop reason. */
  private async finish(step: ChatStep, stop: string, report?: string): Promise<void> {
    const { turns } = step.state;
    const last = turns.at(-1);
    const text = report ?? last?.text;
    const summary = report !== undefined ? firstLine(report) : last ? `${last.speaker}: ${firstLine(last.text)}` : stop;
    await this.deps.store.append([
      makeMessage({
        type: "task.result",
        ...this.at(step.root),
        to: [step.root.from],
        payload: {
          summary: summary || stop,
          ...(text ? { report_markdown: text } : {}),
          stop_reason: stop,
          data: { stop_reason: stop, turns: turns.length, messages: turns.map((t) => ({ source: t.speaker, content: t.text })) },
        },
        idempotency_key: step.key("result"),
      }),
    ]);
  }

  /** Round robin, selector, swarm and GraphFlow: end the chat, or ask the next speakers. Resolves true when the chat ended. */
  private async advanceTurns(step: ChatStep): Promise<boolean> {
    const { shape, root, state } = step;
    const task = root.payload.instructions ?? root.payload.title ?? "";
    // GraphFlow: AutoGen checks the graph's completion before any termination condition.
    let graphNextUp: { name: string; rule: string }[] | null = null;
    if (shape.kind === "graph_flow") {
      if (!shape.graph) {
        await this.fail(step, "GROUP_CHAT_STOPPED", "The group chat cannot go on: the GraphFlow team has no graph", { turn: state.requested + 1 });
        return true;
      }
      const next = graphNext(shape.graph, task, state.turns);
      if (next.kind === "done") {
        await this.finish(step, next.reason);
        return true;
      }
      graphNextUp = next.speakers;
    }
    const stop = this.stopReason(step);
    if (stop) {
      await this.finish(step, stop);
      return true;
    }
    const n = state.requested + 1;
    const out: ClutchMessage[] = [];
    if (graphNextUp) {
      graphNextUp.forEach((s, i) => {
        const speaker = shape.participants.find((p) => p.name === s.name)!;
        out.push(...this.turn(step, n + i, speaker, s.rule, { batch: n }));
      });
    } else {
      let next = nextSpeaker(shape, task, state.turns);
      if (next.kind === "select") next = await this.select(step, next.candidates, next.prompt);
      if (next.kind === "none") {
        await this.fail(step, "GROUP_CHAT_STOPPED", `The group chat cannot go on: ${next.reason}`, { turn: n });
        return true;
      }
      out.push(...this.turn(step, n, next.speaker, next.rule));
    }
    await this.deps.store.append(out);
    return false;
  }

  /** The run's counts a termination condition reads: tokens of its model.usage, tools called, agent events. */
  private facts(step: ChatStep): ChatFacts {
    let prompt = 0;
    let completion = 0;
    const tools: string[] = [];
    let agentEvents = 0;
    for (const e of step.events) {
      if (isEvent(e, "model.usage")) {
        prompt += e.payload.input_tokens;
        completion += e.payload.output_tokens;
      } else if (isEvent(e, "tool.call")) {
        tools.push(e.payload.tool);
        agentEvents++;
      } else if (isEvent(e, "tool.result", "tool.error")) agentEvents++;
    }
    return { task: step.root.payload.instructions ?? "", started_at_ms: Date.parse(step.root.ts), now_ms: Date.now(), tokens: { prompt, completion }, tool_calls: tools, agent_events: agentEvents };
  }

  /**
   * AutoGen's stop reason once a termination condition holds, or the turn cap. The condition sees
   * what AutoGen shows it: every turn, or (GraphFlow, whose parallel speakers finish as one batch)
   * the last turn to finish of each batch; `max_turns` counts turns, or GraphFlow's batches.
   */
  private stopReason(step: ChatStep): string | null {
    const { shape, state } = step;
    const seen = shape.kind === "graph_flow" ? state.turns.filter((t, i) => !state.turns.slice(i + 1).some((later) => later.batch === t.batch)) : state.turns;
    const reason = terminated(shape.termination, seen, this.facts(step));
    if (reason) return reason;
    const max = shape.max_turns ?? (shape.termination ? null : DEFAULT_MAX_TURNS);
    return max !== null && seen.length >= max ? `Maximum number of turns ${max} reached.` : null;
  }

  /**
   * One call of the team's model client (`messages`), metered: its `model.usage` is appended on the
   * root task (`from: agent:group-chat`, `step` the chat's model call from 1, `meta` saying what
   * for) before its answer is used. Resolves with the answer's text; rejects with the model's error.
   */
  private async callModel(step: ChatStep, messages: ModelMessage[], meta: Record<string, unknown>, keyPart: string): Promise<string> {
    const model = this.deps.teamModel(step.root.thread_id, step.shape);
    const started = performance.now();
    const result = await generateText({ model, messages, maxRetries: 2, allowSystemInMessages: true });
    const { root } = step;
    const usage = modelUsage(model, result, performance.now() - started, ++step.calls);
    await this.deps.store.append([makeMessage({ type: "model.usage", thread_id: root.thread_id, run_id: root.run_id, task_id: root.task_id, from: GROUP_CHAT_AGENT, to: [], payload: usage, meta, idempotency_key: step.key(`${keyPart}:usage`) })]);
    return result.text;
  }

  /** The provider id of the team's model (the selector prompt's role depends on it). */
  private providerOf(step: ChatStep): string {
    const model = this.deps.teamModel(step.root.thread_id, step.shape);
    return typeof model === "string" ? "gateway" : model.provider;
  }

  /**
   * Ask the selector model as AutoGen's `_select_speaker` does (see the module doc) and take the
   * speaker its answer names; each answered call appends its `model.usage` at once.
   */
  private async select(step: ChatStep, candidates: Participant[], prompt: string): Promise<{ kind: "speak"; speaker: Participant; rule: string }> {
    const { shape, state } = step;
    const n = state.requested + 1;
    const attempts = Math.max(1, shape.max_selector_attempts ?? 3);
    const previous = state.turns.at(-1)?.speaker ?? null;
    const answers: string[] = [];
    let messages: ModelMessage[] | null = null;
    for (let i = 1; i <= attempts; i++) {
      let answer: string;
      try {
        messages ??= [{ role: selectorPromptRole(this.providerOf(step)), content: prompt }];
        answer = await this.callModel(step, messages, { group_chat_turn: n, selector_attempt: i }, `turn:${n}:select:${i}`);
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

  /** What advanceMagentic needs from the runner. */
  private magenticDeps(step: ChatStep): MagenticDeps {
    return {
      append: (messages) => this.deps.store.append(messages).then(() => undefined),
      call: (messages, meta, keyPart) => this.callModel(step, messages, meta, keyPart),
      turn: (n, speaker, rule, instructions) => this.turn(step, n, speaker, rule, { instructions }),
      facts: () => this.facts(step),
      finish: (stop, report) => this.finish(step, stop, report),
      fail: (code, message, details) => this.fail(step, code, message, details),
    };
  }

  /**
   * The events of turn `n` by `speaker`: a question to the people, or a routing.decision and a
   * task.request to the agent. `instructions` replaces the default (the whole conversation so far);
   * `batch` names the first turn of the batch it starts with.
   */
  private turn(step: ChatStep, n: number, speaker: Participant, rule: string, options: { instructions?: string; batch?: number } = {}): ClutchMessage[] {
    const { shape, root, state, key } = step;
    const turns = state.turns;
    const at = { thread_id: root.thread_id, run_id: root.run_id };
    const meta = { group_chat_turn: n, speaker: speaker.name, ...(options.batch !== undefined ? { group_chat_batch: options.batch } : {}) };
    if (speaker.kind === "people" || !speaker.agent_id) {
      const handoff = turns.at(-1)?.handoff_to ? shape.handoffs.find((h) => h.from === turns.at(-1)!.speaker && h.target === speaker.name) : undefined;
      const text =
        handoff?.message ??
        (options.instructions !== undefined
          ? `${options.instructions}\n\nIt is your turn in the group chat (turn ${n}). Reply to go on.`
          : turns.length
            ? `${turns.at(-1)!.speaker} said: ${firstLine(turns.at(-1)!.text)}\n\nIt is your turn in the group chat (turn ${n}). Reply to go on.`
            : `It is your turn in the group chat (turn ${n}). Reply to go on.`);
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
    const history = [`user: ${root.payload.instructions ?? root.payload.title ?? ""}`, ...turns.map((t) => `${t.speaker}: ${t.text}`)].join("\n\n");
    const handoffs = shape.kind === "swarm" ? shape.handoffs.filter((h) => h.from === speaker.name) : [];
    const instructions =
      options.instructions ??
      [
        `You are ${speaker.name} in a ${patternName(shape.kind)} group chat with ${speakers(shape).filter((p) => p.name !== speaker.name).map((p) => p.name).join(", ") || "no one else"}.`,
        `The conversation so far:\n\n${history}`,
        "Say your next message in the chat: submit_result with your message as its summary (or answer in plain text).",
        handoffs.length ? `To hand the conversation to another participant, submit_result with data.handoff_to set to one of: ${handoffs.map((h) => `${h.target}${h.description ? ` (${h.description})` : ""}`).join(", ")}.` : "",
      ]
        .filter(Boolean)
        .join("\n\n");
    const turn = { ...at, task_id: newId("task"), parent_task_id: root.task_id };
    const why: Assignment = { mode: "group_chat", reason: rule, rule: shape.kind, candidates: shape.participants.flatMap((p) => (p.agent_id ? [p.agent_id] : [])) };
    const payload = { title: `Turn ${n}: ${speaker.name}`, instructions, context_summary: `Turn ${n} of the group chat on: ${root.payload.title ?? ""}` };
    return assign(turn, agent_id, why, { payload, meta, from: GROUP_CHAT_AGENT }, { routing: key(`turn:${n}:routing`), request: key(`turn:${n}:request`) });
  }
}

export function firstLine(text: string): string {
  return (text.split("\n").find((l) => l.trim()) ?? "").trim();
}
