/**
 * Watching a running AutoGen team live (Clutch Protocol §7.3 `autogen`; docs/adapters.md
 * "AutoGen"): a run in a channel that an AutoGen process feeds with its AgentChat messages
 * (translate.ts maps them), and the people's answers it fetches back for its UserProxyAgent.
 *
 *   startAutogenRun   the run's root task: requested by the caller of the team `agent:autogen`
 *                     (shown as "AutoGen · <team label>", lib/autogen-name.ts), accepted at once;
 *                     `meta.autogen.run` marks it, `meta.autogen.team` keeps the label
 *   postAutogenMessages  a batch of AgentChat messages (or a TaskResult) appended as one
 *                     transaction; a retry of the same message ids stores nothing new
 *   waitForInput      the answer a person gave to a UserInputRequestedEvent's question, waited
 *                     for up to `wait_sec` (a long poll)
 *
 * Only the principal that started a run may feed it and fetch its answers (403 not_your_run);
 * a run is anyone's who may read its channel to watch. Batches of one run are translated one
 * after another in the whole deployment, whichever node each reaches (the state each starts from
 * is the store's; `EventStore.exclusive`).
 */
import { autogenName } from "@/lib/autogen-name";
import { isEvent, makeMessage, newId, type StoredEvent, type StoredEventOf } from "@/lib/protocol";
import type { Principal } from "../../auth/principal";
import type { ClutchParts } from "../parts";
import { ClutchError } from "../../errors";
import { requester } from "../../runs/remote";
import { AutogenInputError, checkBatch, runStateOf, TEAM_AGENT, translate, type AutogenRunState, type ItemOutcome } from "./translate";

type Deps = Pick<ClutchParts, "store" | "tail" | "identity">;

/** A started run: where to post its messages. */
export interface AutogenRun {
  run_id: string;
  thread_id: string;
  task_id: string;
  channel: string;
}

/**
 * Start an AutoGen run in `channel` (by name) for `p`: the team `team` (its label; default the
 * channel's name) on `task` (the text given to `run_stream`, optional); `model` names the model its
 * clients use, for the run's `model.usage` (so the workspace's prices apply). Throws ClutchError
 * unknown_thread (404) when `p` may not read the channel, forbidden (403) for a guest.
 */
export async function startAutogenRun(deps: Deps, p: Principal, input: { channel: string; task?: string; team?: string; model?: string }): Promise<AutogenRun> {
  const thread = await deps.store.queries.threadByName(input.channel);
  if (!thread || !(await deps.identity.channels.canRead(p, thread.id))) throw new ClutchError("unknown_thread", `there is no channel #${input.channel} you may read; name a channel of the workspace`, 404);
  if (p.kind === "person" && p.role === "guest") throw new ClutchError("forbidden", "guests may not start runs", 403);
  const team = input.team ?? input.channel;
  const run_id = newId("run");
  const task_id = newId("task");
  const at = { thread_id: thread.id, run_id, task_id, parent_task_id: null };
  const from = requester(p);
  const title = input.task ? input.task.split("\n")[0]!.slice(0, 120) : `AutoGen team ${team}`;
  const teamAgent = { agent_id: TEAM_AGENT, role: "worker", display_name: autogenName(team) };
  await deps.store.append([
    makeMessage({
      type: "task.request",
      ...at,
      from,
      to: [teamAgent],
      payload: { title, ...(input.task ? { instructions: input.task } : {}), context_summary: `${from.display_name ?? from.agent_id} runs the AutoGen team ${team} in #${thread.name}`, input: { autogen: { team, ...(input.model ? { model: input.model } : {}) } } },
      meta: { requested_by: p.agent_id, autogen: { run: true, team } },
    }),
    makeMessage({ type: "task.accept", ...at, from: teamAgent, to: [from], payload: { agent_id: TEAM_AGENT } }),
  ]);
  return { run_id, thread_id: thread.id, task_id, channel: thread.name };
}

/** The run's events and state, checked to be `p`'s AutoGen run. Throws unknown_run (404), not_your_run (403). */
async function ownRun(deps: Deps, p: Principal, run_id: string): Promise<{ events: StoredEvent[]; state: AutogenRunState }> {
  const events = await deps.store.readAll({ run_id });
  const state = runStateOf(events);
  if (!state || !(await deps.identity.channels.canRead(p, state.thread_id))) throw new ClutchError("unknown_run", `there is no AutoGen run ${run_id}; start one with POST /api/autogen/runs`, 404);
  if (state.requester.agent_id !== p.agent_id) throw new ClutchError("not_your_run", `run ${run_id} was started by ${state.requester.display_name ?? state.requester.agent_id}; only they may feed it`, 403);
  return { events, state };
}

/**
 * Append AgentChat messages (`items`: one message, a list, or a TaskResult) to `p`'s run
 * `run_id`. Returns each item's outcome and the stored events, and whether any was new. Throws
 * ClutchError invalid_autogen_message (400, `issues` with each bad item's index and JSONPath;
 * nothing stored), unknown_run (404), not_your_run (403).
 */
export async function postAutogenMessages(deps: Deps, p: Principal, run_id: string, items: unknown[]): Promise<{ outcomes: ItemOutcome[]; events: StoredEvent[]; created: boolean }> {
  let checked: ReturnType<typeof checkBatch>;
  try {
    checked = checkBatch(items);
  } catch (err) {
    if (!(err instanceof AutogenInputError)) throw err;
    const [first] = err.issues;
    throw new ClutchError("invalid_autogen_message", `item ${first!.index} cannot be read: ${first!.path}: ${first!.message}${err.issues.length > 1 ? ` (and ${err.issues.length - 1} more)` : ""}; nothing was stored`, 400, err.issues);
  }
  // Each batch reads the run as the batches before it left it, on whichever node they arrived.
  return deps.store.exclusive(`autogen:${run_id}`, async () => {
    const { state } = await ownRun(deps, p, run_id);
    const { envelopes, outcomes } = translate(checked, state);
    if (!envelopes.length) return { outcomes, events: [], created: false };
    const { events, created } = await deps.store.append(envelopes);
    return { outcomes, events, created: created.some(Boolean) };
  });
}

/** A person's answer to an AutoGen question. */
export interface AutogenAnswer {
  request_id: string;
  question_id: string;
  text: string;
  /** Who answered (their name). */
  from: string;
}

/**
 * The answer to the question of UserInputRequestedEvent `request_id` (default: the run's latest
 * question) in `p`'s run `run_id`, waiting up to `wait_sec` seconds for it; null when none came
 * in time. Throws unknown_run (404), not_your_run (403), unknown_request (404: no such question).
 */
export async function waitForInput(deps: Deps, p: Principal, run_id: string, opts: { request_id?: string; wait_sec: number; signal?: AbortSignal }): Promise<AutogenAnswer | null> {
  const { events, state } = await ownRun(deps, p, run_id);
  const entries = Object.entries(state.questions);
  const found = opts.request_id ? entries.find(([r]) => r === opts.request_id) : entries.at(-1);
  if (!found) throw new ClutchError("unknown_request", opts.request_id ? `run ${run_id} has no question for request_id ${opts.request_id}; post its UserInputRequestedEvent first` : `run ${run_id} has no question yet`, 404);
  const [request_id, question] = found;
  const answerOf = (ev: StoredEvent): AutogenAnswer | null =>
    isEvent(ev, "chat.message") && ev.run_id === run_id && ev.payload.reply_to === question.id
      ? { request_id, question_id: question.id, text: (ev as StoredEventOf<"chat.message">).payload.text, from: ev.from.display_name ?? ev.from.agent_id }
      : null;
  return new Promise<AutogenAnswer | null>((resolve) => {
    let done = false;
    const finish = (a: AutogenAnswer | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      opts.signal?.removeEventListener("abort", abort);
      resolve(a);
    };
    const abort = () => finish(null);
    // Subscribed before the backlog is read again, so an answer between the two is not missed.
    const unsubscribe = deps.tail.subscribe((ev) => {
      const a = answerOf(ev);
      if (a) finish(a);
    });
    const timer = setTimeout(() => finish(null), Math.max(0, opts.wait_sec) * 1000);
    opts.signal?.addEventListener("abort", abort);
    for (const ev of events) {
      const a = answerOf(ev);
      if (a) return finish(a);
    }
    void deps.store.readAll({ run_id }, events.at(-1)?.seq ?? 0).then(
      (later) => {
        for (const ev of later) {
          const a = answerOf(ev);
          if (a) return finish(a);
        }
        if (opts.wait_sec <= 0) finish(null);
      },
      () => finish(null),
    );
  });
}
