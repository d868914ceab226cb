/**
 * Rebuilding an instance's conversation from the log (server/agents/conversation.ts):
 * own calls and outputs, inbound messages, half-done calls, and a message that arrives while
 * the model is thinking.
 */
import { describe, expect, it } from "vitest";
import { makeMessage, type ClutchMessage, type StoredEvent } from "@/lib/protocol";
import { buildConversation, type AgentStepMeta } from "./conversation";
import type { SystemMeta } from "./models/system-meta";

const ref = { agent_id: "agent:analyst-1", instance_id: "analyst-1/task_A", task_id: "task_A" };
const meta: SystemMeta = { ...ref, run_id: "run_1", task_kind: "work", allowed_agents: [], overseer: null };
let seq = 0;
const ev = (m: Partial<ClutchMessage> & Pick<ClutchMessage, "type" | "payload">, agent?: AgentStepMeta): StoredEvent => ({
  ...makeMessage({ thread_id: "thr_1", run_id: "run_1", task_id: "task_A", from: { agent_id: "agent:analyst-1" }, to: [], ...m, ...(agent ? { meta: { agent } } : {}) } as never),
  seq: ++seq,
});
const own = (step: number, extra: Partial<AgentStepMeta> = {}): AgentStepMeta => ({ instance_id: ref.instance_id, step, ...extra });

function story(turnEndSeen: number | undefined) {
  seq = 0;
  const request = ev({ type: "task.request", payload: { title: "Analyze" }, from: { agent_id: "agent:pm-1" }, to: [{ agent_id: "agent:analyst-1" }] });
  const ask = ev(
    { type: "chat.message", payload: { text: "Include 2016?", expects_reply: true }, to: [{ agent_id: "agent:pm-1" }] },
    own(1, { call_id: "c1", tool: "ask", input: { to: "agent:pm-1", question: "Include 2016?" }, output: "Sent.", seen_seq: 1 }),
  );
  const answer = ev({ type: "chat.message", payload: { text: "Yes", reply_to: ask.id }, from: { agent_id: "agent:pm-1" }, to: [{ agent_id: "agent:analyst-1" }] });
  const turnEnd = ev({ type: "task.progress", payload: { message: "Waiting." } }, own(2, { text: "Waiting.", ...(turnEndSeen ? { seen_seq: turnEndSeen } : {}) }));
  return { events: [request, ask, answer, turnEnd], answer };
}

describe("buildConversation", () => {
  it("rebuilds the request, the agent's calls and outputs, and messages to it", () => {
    const { events } = story(3);
    const c = buildConversation(events, ref, "system", meta);
    expect(c.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(c.steps).toBe(2);
    expect(c.idle).toBe(true); // the turn end came after the model saw the answer
    expect(c.instructions.providerOptions?.clutch).toMatchObject({ agent_id: "agent:analyst-1" });
  });

  it("shows an answer stored while the model was thinking after the turn end, and is not idle", () => {
    const { events, answer } = story(2);
    const c = buildConversation(events, ref, "system", meta);
    expect(c.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(JSON.stringify(c.messages.at(-1))).toContain(answer.id);
    expect(c.idle).toBe(false);
  });

  it("lists a recorded call without an output as pending", () => {
    seq = 0;
    const events = [
      ev({ type: "task.request", payload: {}, from: { agent_id: "agent:pm-1" }, to: [{ agent_id: "agent:analyst-1" }] }),
      ev({ type: "tool.call", payload: { call_id: "c9", tool: "query_data", server_id: "DataServer" } }, own(1, { call_id: "c9", tool: "DataServer__query_data", input: { sql: "SELECT 1" } })),
    ];
    const c = buildConversation(events, ref, "system", meta);
    expect(c.pending).toEqual([{ step: 1, call_id: "c9", tool: "DataServer__query_data", input: { sql: "SELECT 1" } }]);
  });

  it("ignores messages to other agents and other tasks", () => {
    const { events } = story(3);
    const other = ev({ type: "chat.message", payload: { text: "not for you" }, task_id: "task_B", to: [{ agent_id: "agent:analyst-1" }] });
    const c = buildConversation([...events, other], ref, "system", meta);
    expect(JSON.stringify(c.messages)).not.toContain("not for you");
  });
});

describe("buildConversation of a follow-up", () => {
  it("starts with the conversation so far, then the follow-up request", () => {
    seq = 0;
    const pm = { agent_id: "agent:pm-1", instance_id: "pm-1/task_F", task_id: "task_F" };
    const dana = { agent_id: "user:dana", role: "human" as const, display_name: "Dana" };
    const request = ev({ type: "task.request", task_id: "task_T1", from: { agent_id: "agent:orchestrator" }, to: [{ agent_id: "agent:pm-1" }], payload: { title: "Analyze Q4", instructions: "Analyze Q4", input: { from: dana } } });
    const report = ev({ type: "chat.message", task_id: "task_T1", from: { agent_id: "agent:pm-1" }, to: [{ agent_id: "user" }], payload: { text: "Q4 2017 sales were $1.00" } });
    const result = ev({ type: "task.result", task_id: "task_T1", from: { agent_id: "agent:pm-1" }, payload: { summary: "Q4 2017: $1.00", total: 1 } });
    const message = ev({ type: "chat.message", task_id: "task_F", from: dana, to: [{ agent_id: "agent:pm-1" }], payload: { text: "Now by segment", reply_to: report.id }, meta: { follows: report.id } });
    const followUp = ev({ type: "task.request", task_id: "task_F", from: { agent_id: "agent:orchestrator" }, to: [{ agent_id: "agent:pm-1" }], payload: { title: "Now by segment", instructions: "Now by segment", input: { from: dana } }, meta: { follows: report.id } });
    const c = buildConversation([request, report, result, message, followUp], pm, "system", { ...meta, ...pm });
    expect(c.messages.map((m) => m.role)).toEqual(["user", "user"]);
    const history = JSON.stringify(c.messages[0]);
    for (const said of ["Analyze Q4", "Q4 2017 sales were $1.00", '\\"total\\":1']) expect(history).toContain(said);
    expect(JSON.stringify(c.messages[1])).toContain(`Follow-up task task_F: Dana (user:dana) replied to ${report.id}`);
    expect(JSON.stringify(c.messages[1])).not.toContain(`Follow-up task task_F: agent:orchestrator`);
  });
});
