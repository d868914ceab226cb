/**
 * A third-party agent on Clutch's public API only (examples/third-party-agent/README.md): it
 * registers its AgentCard, sends heartbeats, listens to its inbox (the events addressed to it),
 * and answers each task.request with task.accept, then task.result: the words of the request,
 * counted. Run: CLUTCH_URL=http://localhost:3000 CLUTCH_AGENT_KEY=clk_… AGENT_ID=agent:word-counter
 * node --import tsx examples/third-party-agent/agent.ts
 */
import { io } from "socket.io-client";

const url = process.env.CLUTCH_URL ?? "http://localhost:3000";
const me = process.env.AGENT_ID ?? "agent:word-counter";
const headers = { authorization: `Bearer ${process.env.CLUTCH_AGENT_KEY}`, "content-type": "application/json" };

async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(url + path, { method: "POST", headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}

await post("/api/agents", { v: "clutch/0.1", agent_id: me, display: { name: "Word counter", desc: "Counts the words of a request" }, capabilities: [{ id: "skill:word-count", version: "1.0" }] });
setInterval(() => post(`/api/agents/${encodeURIComponent(me)}/heartbeat`, {}).catch(console.error), 10_000);

type Event = { seq: number; id: string; type: string; thread_id: string; run_id: string; task_id: string; parent_task_id?: string | null; from: { agent_id: string }; payload: Record<string, unknown> };
let after = 0; // the last seq seen: a reconnect resumes from it, so nothing is missed or handled twice
const socket = io(url, { auth: { token: process.env.CLUTCH_AGENT_KEY, frames: true }, transports: ["websocket"] });
socket.on("connect", () => socket.emit("subscribe", { agent_id: me, after }, (ack: unknown) => console.log("listening", JSON.stringify(ack))));
// Events come in frames: an array of one or more, in seq order (a burst is one frame).
socket.on("events", (events: Event[]) => {
  for (const ev of events) {
    after = ev.seq;
    void answer(ev);
  }
});

async function answer(ev: Event): Promise<void> {
  if (ev.type !== "task.request") return;
  // A reply is in the request's thread, run and task, from me, to whoever asked (the request's `from`).
  const reply = (type: string, payload: Record<string, unknown>) => ({
    v: "clutch/0.1", id: `msg_${crypto.randomUUID()}`, ts: new Date().toISOString(), type, payload,
    thread_id: ev.thread_id, run_id: ev.run_id, task_id: ev.task_id, parent_task_id: ev.parent_task_id ?? null,
    from: { agent_id: me, role: "worker" }, to: [ev.from], idempotency_key: `${ev.id}:${type}`,
  });
  const words = String(ev.payload.instructions ?? ev.payload.title ?? "").replace(/@\S+/g, "").split(/\s+/).filter(Boolean);
  await post("/api/events", [reply("task.accept", { agent_id: me }), reply("task.result", { summary: `The request has ${words.length} words.`, words: words.length })]).catch(console.error);
}
