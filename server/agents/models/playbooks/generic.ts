/**
 * The playbook of an agent the built-in model has no role for: answer questions put to it,
 * then finish its task with an acknowledgement that summarises the request (work), or a
 * review.feedback.v1 that checks only that there is a result to review (review).
 */
import { clip, messageText } from "./common";
import { reviewedWork } from "./qa";
import { call, endTurn, type Playbook } from "./types";

export const generic: Playbook = (t) => {
  if (t.ownTaskStopped()) return endTurn("My task was stopped; nothing more to do.");
  const who = t.meta.agent_id || "this agent";
  const q = t.pendingQuestions()[0];
  if (q) {
    return call("reply", {
      to: q.event?.from.agent_id ?? "user",
      reply_to: q.event?.id,
      text: `${who} runs on Clutch's built-in model, which has no playbook for this role, so I cannot answer "${clip(messageText(q), 200)}" in depth. Configure a model for this agent (CLUTCH_MODEL_<AGENT>) for a real answer.`,
    });
  }
  if (t.lastSubmitIndex() >= 0) return endTurn("Task submitted.");
  const request = clip(t.requestText(), 500) || "(empty request)";
  if (t.meta.task_kind === "review") {
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
  return call("submit_result", {
    summary: `Acknowledged: ${request}`,
    report_markdown: `**${who}** received the request:\n\n> ${request.replace(/\n/g, "\n> ")}\n\nThis agent runs on Clutch's built-in model, which has no playbook for its role; no analysis was done.`,
  });
};
