/**
 * Recovery of follow-ups (docs/channels.md "Follow-ups"; server/orchestrator/orchestrator.ts
 * `recover()`): a person's reply to an agent's message, stored while no process did the agents'
 * work, is requested of that agent when the next process starts, like a first request; a
 * further start does not request it again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { personMessage } from "@/server/events/chat";
import { msg, testClutch } from "./helpers";
import { scratchWorkspace, startAgents, threadEvents, waitFor } from "./agents";

let rt: Clutch;

beforeAll(async () => {
  rt = await testClutch();
});
afterAll(async () => {
  await rt?.stop();
});

const followUpRequests = (events: StoredEvent[], message_id: string) =>
  events.filter((e) => e.type === "task.request" && e.meta?.follow_up_message === message_id);

describe("recover() and follow-ups", () => {
  it("requests a follow-up stored while the agents were stopped, once", async () => {
    const ws = scratchWorkspace();
    // The first process makes the workspace's channel; then it stops.
    const first = await startAgents(ws.dir);
    const thread_id = (await first.store.queries.threadByName(ws.channel))!.id;
    await first.stop();

    // While nothing works the agents: a run pm-1 finished, and the person's reply to its result.
    const run_id = newId("run");
    const task_id = newId("task");
    const pm = { agent_id: "agent:pm-1", role: "worker" as const };
    const stored = await rt.store.appendAll([
      msg("task.request", { title: "Analyze last quarter's sales trends", instructions: "Analyze last quarter's sales trends" }, { thread_id, run_id, task_id, from: { agent_id: "user:dana", role: "human" }, to: [{ agent_id: pm.agent_id }] }),
      msg("task.result", { summary: "Q4 2017 sales were up 12% on Q3, led by the West region." }, { thread_id, run_id, task_id, from: pm }),
    ]);
    const report = stored.events[1]!;
    expect(report.type).toBe("task.result");
    const reply = await personMessage(rt.store.queries, thread_id, { text: "Now break it down by customer segment", reply_to: report.id }, { agent_id: "user:dana", display_name: "Dana" });
    const followUp = (await rt.store.append(reply)).events[0]!;
    expect(followUp).toMatchObject({ run_id, parent_task_id: null, to: [{ agent_id: "agent:pm-1" }], meta: { follows: report.id } });

    // The next process recovers it: the follow-up's request of pm-1, in the message's task.
    const second = await startAgents(ws.dir);
    try {
      const request = await waitFor(rt, thread_id, "the recovered follow-up request", (evs) => followUpRequests(evs, followUp.id)[0]);
      expect(request).toMatchObject({
        run_id,
        task_id: followUp.task_id,
        parent_task_id: null,
        to: [{ agent_id: "agent:pm-1" }],
        payload: { title: "Now break it down by customer segment", input: { message_id: followUp.id, follows: report.id } },
        meta: { follows: report.id, follow_up_message: followUp.id },
      });
    } finally {
      await second.stop();
    }

    // Another start finds it requested and leaves it.
    const third = await startAgents(ws.dir);
    await third.stop();
    const events = await threadEvents(rt, thread_id);
    expect(followUpRequests(events, followUp.id)).toHaveLength(1);
    expect(events.filter((e) => e.type === "routing.decision" && e.task_id === followUp.task_id)).toHaveLength(1);
  }, 120_000);
});
