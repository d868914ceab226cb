/**
 * An AutoGen run fed through two Clutch nodes at once (docs/adapters.md "AutoGen", docs/deploy.md
 * "Several nodes"): a forwarder's batches of one run are translated one after another in the whole
 * deployment (`EventStore.exclusive`), whichever node each reaches. Two overlapping batches sent
 * to two nodes at the same moment store the run as one batch would: each agent's task requested
 * once, and every message under a task that was requested. Real PostgreSQL; skipped on the
 * embedded database (one process).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isEvent, newId, type StoredEvent } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import type { Principal } from "@/server/auth/principal";
import { postAutogenMessages, startAutogenRun } from "@/server/adapters/autogen/runs";
import { testAgent, testClutch } from "./helpers";

const stream = (JSON.parse(fs.readFileSync("test/fixtures/autogen/streams/round-robin-tools.json", "utf8")) as { stream: Record<string, unknown>[] }).stream;

let a: Clutch;
let b: Clutch;
let forwarder: Principal;

describe.skipIf(inject("embeddedDatabase"))("an AutoGen run fed through two nodes", () => {
  beforeAll(async () => {
    a = await testClutch();
    b = await testClutch();
    const { headers } = await testAgent(a, "agent:autogen-forwarder");
    forwarder = (await b.identity.authenticate(new Headers(headers)))!;
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** What is wrong with a run's events: a task requested twice for one agent, a message under a task never requested. */
  function problems(events: StoredEvent[]): string[] {
    const requested = new Map<string, string>();
    const out: string[] = [];
    for (const e of events.filter((x) => x.type === "task.request")) {
      const agent = e.to[0]?.agent_id ?? "";
      if ([...requested.values()].includes(agent) && e.parent_task_id) out.push(`${agent} requested twice`);
      requested.set(e.task_id, agent);
    }
    for (const e of events) if (!requested.has(e.task_id)) out.push(`${e.type} ${e.id} under task ${e.task_id}, never requested`);
    return out;
  }

  it("stores two overlapping batches sent to two nodes at once as one batch would, every time", async () => {
    const name = `autogen-${newId("thread").slice(-10).toLowerCase()}`;
    await a.store.createThread({ name }, { agent_id: "user:test" });
    /** The run's events as the channel shows them: type, who, what. */
    const shape = (events: StoredEvent[]) => events.map((e) => `${e.type} ${e.from.agent_id} ${isEvent(e, "chat.message") ? JSON.stringify(e.payload.text) : ""}`);
    const reference = await startAutogenRun(a, forwarder, { channel: name, task: "Say pass", team: "Demo team" });
    await postAutogenMessages(a, forwarder, reference.run_id, stream.slice(0, 8));
    const expected = shape(await a.store.readAll({ run_id: reference.run_id }));
    for (let round = 0; round < 6; round++) {
      const run = await startAutogenRun(a, forwarder, { channel: name, task: "Say pass", team: "Demo team" });
      // The forwarder retried a batch on another node while the first was still being stored.
      await Promise.all([postAutogenMessages(a, forwarder, run.run_id, stream.slice(0, 5)), postAutogenMessages(b, forwarder, run.run_id, stream.slice(0, 8))]);
      const events = await a.store.readAll({ run_id: run.run_id });
      expect(problems(events), `round ${round}`).toEqual([]);
      expect(shape(events), `round ${round}`).toEqual(expected);
    }
  });
});
