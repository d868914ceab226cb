/**
 * The playbook of an agent the workspace's playbooks do not cover. It says plainly that it did
 * no work and how to connect a real model: in its answer to a question put to it, in a message
 * to the person who asked for the task (when a person did), and in the reason it declines the
 * task with (task.error CANNOT_ANSWER), so the run shows as not done. A review task gets a review.feedback.v1 that checks only that there is a result.
 */
import { connectModelHelp } from "../connect";
import { askedByPerson, clip, messageText, reviewedWork } from "./common";
import type { Transcript } from "./transcript";
import { call, endTurn, type Playbook } from "./types";

/** What the agent tells people: it runs on the built-in model, has no playbook, did nothing. */
function notice(t: Transcript, about: string): string {
  const who = t.meta.agent_id ? t.nameOf(t.meta.agent_id) : "This agent";
  return [
    `**${who}** runs on Clutch's built-in model, a scripted stand-in with no playbook for this agent, so it has not worked on ${about}.`,
    "",
    ...connectModelHelp(t.meta.agent_id || "agent"),
  ].join("\n");
}

export const generic: Playbook = (t) => {
  if (t.ownTaskStopped()) return endTurn("My task was stopped; nothing more to do.");
  const q = t.pendingQuestions()[0];
  if (q) {
    return call("reply", { to: q.event?.from.agent_id ?? "user", reply_to: q.event?.id, text: notice(t, `"${clip(messageText(q), 200)}"`) });
  }
  if (t.lastSubmitIndex() >= 0 || t.lastCall("decline")) return endTurn("Task ended.");
  if (t.meta.task_kind === "review") {
    const who = t.meta.agent_id ? t.nameOf(t.meta.agent_id) : "this agent";
    const work = reviewedWork(t);
    const has = Object.keys(work.result).length > 0;
    const comments = has
      ? [`Checked by ${who} on the built-in model: the result is present (${Object.keys(work.result).join(", ")}); no figures were recomputed, as this agent has no review playbook.`]
      : [`Nothing to review: the request carries no result.`];
    return call("submit_result", {
      summary: clip(comments[0], 500),
      payload_type: "review.feedback.v1",
      data: { decision: has ? "approved" : "changes_requested", comments, blocking_issues: has ? [] : [{ missing: "result" }] },
    });
  }
  const request = clip(t.requestText(), 500) || "(empty request)";
  const asked = clip(t.askedText(), 500) || request;
  const text = notice(t, `this request:\n\n> ${asked.replace(/\n/g, "\n> ")}`);
  if (askedByPerson(t)) {
    const told = t.lastCall("reply", (i) => i.to === "user");
    if (!told) return call("reply", { to: "user", text });
    if (!told.outcome) return endTurn("Waiting for my message to be sent.");
  }
  return call("decline", { reason: `No playbook for this agent on Clutch's built-in model, so it did not work on: ${request}` });
};
