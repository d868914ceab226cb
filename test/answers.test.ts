/**
 * Answers where the question is (docs/channels.md): a message sent in the channel while pm-1
 * waits starts a new request, as the composer says; "Make it the answer" turns it into the answer
 * (POST /api/threads/:id/messages/:message_id/answer): the answer reaches pm-1's waiting task and
 * the run the message started is cancelled, saying why. Built-in model, real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import * as answerRoute from "@/app/api/threads/[thread_id]/messages/[message_id]/answer/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import { asAdmin } from "./helpers";
import { scratchWorkspace, startAgents, waitFor } from "./agents";

let rt: Clutch;
let thread_id: string;
beforeAll(async () => {
  rt = await startAgents(scratchWorkspace().dir);
  thread_id = rt.channels[0]!.thread_id;
});
afterAll(async () => {
  await rt?.stop();
});

const post = async (text: string, reply_to?: string) => {
  const res = await messagesRoute.POST(
    await asAdmin(`http://t/api/threads/${thread_id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, ...(reply_to ? { reply_to } : {}) }) }),
    { params: Promise.resolve({ thread_id }) },
  );
  return { status: res.status, body: (await res.json()) as { event: StoredEvent; error?: { code: string; message: string } } };
};
const makeAnswer = async (message_id: string, question_id: string) => {
  const res = await answerRoute.POST(
    await asAdmin(`http://t/api/threads/${thread_id}/messages/${message_id}/answer`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question_id }) }),
    { params: Promise.resolve({ thread_id, message_id }) },
  );
  return { status: res.status, body: (await res.json()) as { event: StoredEvent; error?: { code: string; message: string } } };
};

describe("a message meant as the answer", () => {
  it("is turned into the answer: pm-1 carries on, and the run the message started is cancelled", { timeout: 120_000 }, async () => {
    await post("Analyze last quarter's sales trends");
    const question = await waitFor(rt, thread_id, "pm-1's question", (evs) => evs.find((e) => e.type === "chat.message" && e.from.agent_id === "agent:pm-1" && e.payload.expects_reply));
    // Worded like the example's request, so pm-1 takes it up and waits in that run too (rather than declining at once).
    const sent = (await post("Analyze last quarter's sales trends by region")).body.event;
    // As the composer said: a new request, in a run of its own.
    const opened = await waitFor(rt, thread_id, "the run of the new message", (evs) => evs.find((e) => e.type === "task.request" && (e.payload.input as { message_id?: string })?.message_id === sent.id));
    expect(opened.run_id).not.toBe(question.run_id);

    // Not someone else's message, not a question that does not wait.
    expect((await makeAnswer(question.id, question.id)).status).toBe(422);
    expect((await makeAnswer(sent.id, sent.id)).body.error?.code).toBe("unknown_message");

    const made = await makeAnswer(sent.id, question.id);
    expect(made.status).toBe(201);
    expect(made.body.event).toMatchObject({ run_id: question.run_id, task_id: question.task_id, to: [{ agent_id: "agent:pm-1" }], payload: { text: "Analyze last quarter's sales trends by region", reply_to: question.id }, meta: { instead_of: sent.id } });
    // Repeated, it is the same answer.
    expect((await makeAnswer(sent.id, question.id)).status).toBe(200);

    const cancel = await waitFor(rt, thread_id, "the cancel of the new message's run", (evs) => evs.find((e) => e.type === "task.cancel" && e.run_id === opened.run_id));
    expect(cancel.payload.reason).toBe("the message was meant as the answer to Project Manager's question");
    // pm-1 carries on with the answer: its overview query comes after it.
    await waitFor(rt, thread_id, "pm-1's query after the answer", (evs) => evs.find((e) => e.type === "tool.call" && e.run_id === question.run_id && e.payload.tool === "query_data" && e.seq > made.body.event.seq));

    // Answering again is refused, naming who answered.
    const again = await post("Segments after all", question.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "already_answered", message: expect.stringMatching(/^Dana \S+ already answered/) });
  });
});
