/**
 * Running an imported MagenticOneGroupChat (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "Group chats"), as AutoGen's MagenticOneOrchestrator runs it
 * (microsoft/autogen@027ecf0a379bcc1d09956d46d12d44a3ad9cee14, autogen_agentchat/teams/_group_chat/
 * _magentic_one/_magentic_one_orchestrator.py). The orchestrator's decisions are the pure state
 * machine of lib/group-chat/magentic-one.ts; this module makes its model calls with the team's
 * model client (each metered as a `model.usage`, by the caller's `call`) and keeps every answer in
 * the run, so the state is folded again from the log at every step, after a restart too:
 *
 *   the facts and the plan (and their updates on a replan) → task.progress on the root task,
 *                                                            `meta.magentic_one.event` facts | plan
 *   the task ledger, broadcast                             → chat.message from Group chat, event task_ledger
 *   the progress ledger of each step                       → task.progress, event progress_ledger, the ledger in meta
 *   the instruction to the next speaker                    → chat.message from Group chat, event instruction,
 *                                                            then the speaker's turn (group-chat.ts `turn`):
 *                                                            the messages since its last turn, the instruction last
 *   the request satisfied, or the round limit             → the final answer call; its text is the root's task.result
 *   the termination condition on a participant's message   → the root's task.result with its stop reason
 *   a progress ledger AutoGen could not read, a model call  → the root's task.error GROUP_CHAT_FAILED
 *     that failed
 *
 * Every append carries an idempotency key made of the position of the orchestrator's event in the
 * run, so a repeated or recovered step stores nothing twice.
 */
import type { ModelMessage } from "ai";
import { isEvent, makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { speakers, terminated, type ChatFacts, type Participant } from "@/lib/group-chat/turns";
import {
  applyMagenticEvent,
  foldMagentic,
  magenticTeam,
  nextAction,
  participantInbox,
  readLedgerAnswers,
  type MagenticEvent,
  type MagenticState,
  type MagenticTeam,
  type ModelMessage as OrchestratorMessage,
  type ProgressLedger,
} from "@/lib/group-chat/magentic-one";
import { DEFAULT_MAX_TURNS, GROUP_CHAT_AGENT, type ChatStep } from "./group-chat-state";

/** What the group-chat runner gives the orchestrator. */
export interface MagenticDeps {
  append: (messages: ClutchMessage[]) => Promise<void>;
  /** One metered call of the team's model client; resolves with its text. */
  call: (messages: ModelMessage[], meta: Record<string, unknown>, keyPart: string) => Promise<string>;
  /** The events of turn `n` by `speaker`, given its instructions. */
  turn: (n: number, speaker: Participant, rule: string, instructions: string) => ClutchMessage[];
  facts: () => ChatFacts;
  finish: (stop: string, report?: string) => Promise<void>;
  fail: (code: string, message: string, details: Record<string, unknown>) => Promise<void>;
}

/** The orchestrator's event a stored event stands for (`meta.magentic_one`), if any. */
interface Stored {
  event: "facts" | "plan" | "task_ledger" | "progress_ledger" | "instruction";
  ledger?: ProgressLedger;
}

const storedOf = (e: StoredEvent): Stored | null => {
  const m = e.meta?.magentic_one as Stored | undefined;
  return m && typeof m.event === "string" ? m : null;
};

/** The team as the orchestrator knows it: the participants Clutch runs, AutoGen's limits (a chat without any ends after DEFAULT_MAX_TURNS rounds). */
export function teamOf(step: ChatStep): MagenticTeam {
  const { shape } = step;
  return magenticTeam(speakers(shape), {
    max_turns: shape.max_turns ?? (shape.termination ? null : DEFAULT_MAX_TURNS),
    ...(shape.max_stalls != null ? { max_stalls: shape.max_stalls } : {}),
    final_answer_prompt: shape.final_answer_prompt ?? null,
  });
}

/** The orchestrator's events so far, in the order they happened: what it stored and the participants' messages. */
export function magenticEvents(step: ChatStep): MagenticEvent[] {
  const { root, events, state } = step;
  const at: { seq: number; event: MagenticEvent }[] = [{ seq: root.seq, event: { kind: "start", task: root.payload.instructions ?? root.payload.title ?? "" } }];
  for (const e of events) {
    if (e.task_id !== root.task_id || e.from.agent_id !== GROUP_CHAT_AGENT.agent_id) continue;
    const stored = storedOf(e);
    if (!stored) continue;
    if (isEvent(e, "task.progress") && (stored.event === "facts" || stored.event === "plan")) at.push({ seq: e.seq, event: { kind: stored.event, text: e.payload.message ?? "" } });
    else if (isEvent(e, "chat.message") && stored.event === "task_ledger") at.push({ seq: e.seq, event: { kind: "task_ledger" } });
    else if (isEvent(e, "task.progress") && stored.event === "progress_ledger" && stored.ledger) at.push({ seq: e.seq, event: { kind: "progress_ledger", ledger: stored.ledger } });
  }
  for (const t of state.turns) at.push({ seq: t.end_seq, event: { kind: "message", message: { source: t.speaker, content: t.text } } });
  return at.sort((a, b) => a.seq - b.seq).map((x) => x.event);
}

/** The AI SDK messages of an orchestrator call (AutoGen's `source` is OpenAI's `name`, which the AI SDK does not send). */
const sdkMessages = (messages: readonly OrchestratorMessage[]): ModelMessage[] => messages.map((m) => ({ role: m.role, content: m.content }) as ModelMessage);

/**
 * Take the orchestrator's next steps until a participant must speak or the chat ends. Resolves
 * true when the chat ended (result or error), false when a turn was asked for.
 */
export async function advanceMagentic(step: ChatStep, deps: MagenticDeps): Promise<boolean> {
  const team = teamOf(step);
  const names = team.participants.map((p) => p.name);
  const { root, key } = step;
  const at = { thread_id: root.thread_id, run_id: root.run_id, task_id: root.task_id, parent_task_id: null, from: GROUP_CHAT_AGENT };
  const past = magenticEvents(step);
  let m: MagenticState;
  try {
    m = foldMagentic(past, team);
  } catch (err) {
    await deps.fail("GROUP_CHAT_FAILED", `The Magentic-One orchestrator cannot go on from the run's events: ${(err as Error).message}`, {});
    return true;
  }
  let index = past.length;
  let lastLedger = [...past].reverse().find((e): e is Extract<MagenticEvent, { kind: "progress_ledger" }> => e.kind === "progress_ledger")?.ledger ?? null;
  let afterMessage = past.at(-1)?.kind === "message";
  const progress = (event: Stored["event"], message: string, extra: Record<string, unknown> = {}): ClutchMessage =>
    makeMessage({ type: "task.progress", ...at, to: [], payload: { message, status: event === "progress_ledger" ? "deciding" : "planning" }, meta: { magentic_one: { event, ...extra } }, idempotency_key: key(`m1:${index}:${event}`) });
  const apply = (event: MagenticEvent) => {
    m = applyMagenticEvent(m, event, team);
    index++;
  };
  try {
    for (;;) {
      // AutoGen applies the termination condition to each participant's response, never to the task.
      if (afterMessage && m.phase === "step") {
        const reason = terminated(step.shape.termination, step.state.turns, deps.facts(), { withTask: false });
        if (reason) {
          await deps.finish(reason);
          return true;
        }
      }
      afterMessage = false;
      const action = nextAction(m, team);
      switch (action.kind) {
        case "idle":
          throw new Error("the chat has no task");
        case "done":
          await deps.finish(action.stop_reason);
          return true;
        case "failed":
          await deps.fail("GROUP_CHAT_FAILED", action.error, {});
          return true;
        case "task_ledger":
          await deps.append([makeMessage({ type: "chat.message", ...at, to: [], payload: { text: action.content }, meta: { magentic_one: { event: "task_ledger" } }, idempotency_key: key(`m1:${index}:task_ledger`) })]);
          apply({ kind: "task_ledger" });
          continue;
        case "speak": {
          const speaker = speakers(step.shape).find((p) => p.name === action.speaker)!;
          const n = step.state.requested + 1;
          const inbox = participantInbox(m, speaker.name);
          const instructions =
            speaker.kind === "people" || !speaker.agent_id
              ? action.instruction
              : [
                  `You are ${speaker.name} in a Magentic-One team: an orchestrator plans the work and asks one of ${names.join(", ")} at a time.`,
                  `The messages since your last turn:\n\n${inbox.map((x) => `${x.source}: ${x.content}`).join("\n\n")}`,
                  "Do what the orchestrator asks in its last message, then say your message: submit_result with it as its summary (or answer in plain text).",
                ].join("\n\n");
          const reason = String(lastLedger?.next_speaker.reason ?? "");
          await deps.append([
            makeMessage({ type: "chat.message", ...at, to: [], payload: { text: action.instruction }, meta: { magentic_one: { event: "instruction", speaker: speaker.name } }, idempotency_key: key(`m1:${index}:instruction`) }),
            ...deps.turn(n, speaker, `Magentic-One: the orchestrator's progress ledger names ${speaker.name}${reason ? ` (${reason.slice(0, 160)})` : ""}`, instructions),
          ]);
          return false;
        }
        case "call": {
          const purpose = { magentic_one: action.call };
          if (action.call === "progress_ledger") {
            const answers: string[] = [];
            for (;;) {
              answers.push(await deps.call(sdkMessages(action.messages), { ...purpose, attempt: answers.length + 1 }, `m1:${index}:progress_ledger:${answers.length + 1}`));
              const read = readLedgerAnswers(answers, names);
              if (read.kind === "ask_again") continue;
              if (read.kind === "failed") {
                await deps.fail("GROUP_CHAT_FAILED", `The Magentic-One orchestrator could not read its progress ledger: ${read.error}`, { answers: answers.length });
                return true;
              }
              const stored = progress("progress_ledger", ledgerLine(read.ledger), { ledger: read.ledger });
              await deps.append([stored]);
              lastLedger = read.ledger;
              apply({ kind: "progress_ledger", ledger: read.ledger });
              break;
            }
            continue;
          }
          const text = await deps.call(sdkMessages(action.messages), purpose, `m1:${index}:${action.call}`);
          if (action.call === "final_answer") {
            apply({ kind: "final_answer", text });
            if (m.phase === "failed") await deps.fail("GROUP_CHAT_FAILED", m.error ?? "the orchestrator failed", {});
            else await deps.finish(m.stop_reason ?? "", text);
            return true;
          }
          const event = action.call.endsWith("facts") ? "facts" : "plan";
          await deps.append([progress(event, text, { call: action.call })]);
          apply({ kind: event, text });
          continue;
        }
      }
    }
  } catch (err) {
    await deps.fail("GROUP_CHAT_FAILED", `The Magentic-One orchestrator's model call failed: ${(err as Error).message}`, {});
    return true;
  }
}

/** A progress ledger in one line for the run view: who speaks next and whether the request is done. */
function ledgerLine(l: ProgressLedger): string {
  const yes = (e: { answer: unknown }) => Boolean(e.answer);
  return [
    yes(l.is_request_satisfied) ? "Request satisfied" : "Request not yet satisfied",
    yes(l.is_progress_being_made) ? "progress being made" : "no progress",
    ...(yes(l.is_in_loop) ? ["in a loop"] : []),
    `next: ${String(l.next_speaker.answer)}`,
  ].join(" · ");
}
