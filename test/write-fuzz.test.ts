/**
 * A property over every write endpoint: a generated invalid request (arbitrary JSON, or a valid
 * request with one field made invalid in a way PostgreSQL or the protocol refuses) answers a 4xx
 * with the JSON error shape `{ error: { code, message } }`, and stores nothing. Real route
 * handlers, real PostgreSQL (docs/limits.md lists the limits these requests break).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clutch } from "@/server/clutch";
import * as eventsRoute from "@/app/api/events/route";
import * as threadsRoute from "@/app/api/threads/route";
import * as messagesRoute from "@/app/api/threads/[thread_id]/messages/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as heartbeatRoute from "@/app/api/agents/[agent_id]/heartbeat/route";
import * as decisionRoute from "@/app/api/approvals/[approval_id]/decision/route";
import * as forkRoute from "@/app/api/runs/[run_id]/fork/route";
import * as importRoute from "@/app/api/runs/import/route";
import { newThread, rawChat, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let thread_id: string;
/** Events go as agent:tester (the sender of `rawChat`), everything else as an admin: so a refusal is about the input, not the credential. */
let tester: TestPrincipal;
let admin: TestPrincipal;
beforeAll(async () => {
  rt = await testClutch();
  thread_id = await newThread(rt, "fuzz");
  tester = await testAgent(rt);
  admin = await testPerson(rt, "admin");
});
afterAll(() => rt.stop());

type Handler = (req: Request, ctx: never) => Promise<Response>;
const ctx = (p: Record<string, string>) => ({ params: Promise.resolve(p) }) as never;

/** Every write endpoint with the params it is called with. */
const endpoints: { name: string; call: (body: string) => Promise<Response> }[] = [
  { name: "POST /api/events", call: (b) => (eventsRoute.POST as Handler)(req(b, "", tester), undefined as never) },
  { name: "POST /api/threads", call: (b) => (threadsRoute.POST as Handler)(req(b), undefined as never) },
  { name: "POST /api/threads/:id/messages", call: (b) => (messagesRoute.POST as Handler)(req(b), ctx({ thread_id })) },
  { name: "POST /api/agents", call: (b) => (agentsRoute.POST as Handler)(req(b), undefined as never) },
  { name: "POST /api/agents/:id/heartbeat", call: (b) => (heartbeatRoute.POST as Handler)(req(b), ctx({ agent_id: "agent:nobody" })) },
  { name: "POST /api/approvals/:id/decision", call: (b) => (decisionRoute.POST as Handler)(req(b), ctx({ approval_id: "apr_nobody" })) },
  { name: "POST /api/runs/:id/fork", call: (b) => (forkRoute.POST as Handler)(req(b), ctx({ run_id: "run_nobody" })) },
  { name: "POST /api/runs/import", call: (b) => (importRoute.POST as Handler)(req(b, `?thread_id=${thread_id}`), undefined as never) },
];

function req(body: string, query = "", as: TestPrincipal = admin): Request {
  return requestAs(as, `http://test/api${query}`, { method: "POST", headers: { "content-type": "application/json" }, body });
}

/** Values no field may hold: each breaks a storage or protocol limit. */
const poison = fc.constantFrom<unknown>(
  "nul\u0000inside",
  "\ud800",
  "tail \udfff",
  { "a\u0000": 1 },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  "x".repeat(1_000_001),
  Array.from({ length: 70 }).reduce<unknown>((v) => [v], 0),
);

/** A valid chat.message for the fuzz channel with fresh ids. */
const validEvent = () => rawChat(thread_id, { text: "fuzz" });

/** A valid event with one field (top level or in the payload) replaced by a poison value. */
const poisonedEvent = fc
  .tuple(fc.constantFrom("id", "ts", "run_id", "task_id", "from", "to", "type", "payload.text", "payload.extra", "meta"), poison)
  .map(([field, value]) => {
    const ev: Record<string, unknown> = validEvent();
    if (field.startsWith("payload.")) ev.payload = { ...(ev.payload as object), [field.slice(8)]: value };
    else ev[field] = value;
    return JSON.stringify(ev);
  });

/** Bodies that are not what any endpoint takes: arbitrary JSON, truncated JSON, poison. */
const arbitraryBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
  poison.map((v) => JSON.stringify({ text: v, name: v, decision: v, at_seq: v, agent_id: v })),
  fc.string(),
);

const stored = async () => (await rt.store.read({ thread_id }, { limit: 5000 })).events.length;
/** The `name` a body carries, if it is a JSON object with a string name (what POST /api/threads would name a channel). */
function nameIn(body: string): string | null {
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string" ? (v as { name: string }).name : null;
  } catch {
    return null;
  }
}

/** A body that a lucky draw could make valid is skipped: the property is about invalid input. */
function validByChance(name: string, body: string): boolean {
  try {
    const v = JSON.parse(body) as Record<string, unknown>;
    if (name === "POST /api/threads") return typeof v?.name === "string" && /^[a-z0-9][a-z0-9-_]{0,79}$/.test(v.name);
    if (name === "POST /api/threads/:id/messages") return typeof v?.text === "string" && v.text.trim().length > 0 && !v.text.includes("\u0000") && v.text.isWellFormed();
  } catch {
    return false;
  }
  return false;
}

describe("every write endpoint answers invalid input with a 4xx and stores nothing", () => {
  it("poisoned events to POST /api/events and POST /api/runs/import", async () => {
    const before = await stored();
    await fc.assert(
      fc.asyncProperty(poisonedEvent, fc.boolean(), async (body, asImport) => {
        const res = asImport ? await endpoints.at(-1)!.call(body) : await endpoints[0]!.call(body);
        await expectRefused(res);
      }),
      { numRuns: 150 },
    );
    expect(await stored()).toBe(before);
  });

  for (const endpoint of endpoints) {
    it(`arbitrary bodies to ${endpoint.name}`, async () => {
      const [events, threadsBefore] = [await stored(), new Set((await rt.store.listThreads()).map((t) => t.id))];
      const sentNames = new Set<string>();
      await fc.assert(
        fc.asyncProperty(arbitraryBody, async (body) => {
          fc.pre(!validByChance(endpoint.name, body));
          const name = nameIn(body);
          if (name !== null) sentNames.add(name.trim().toLowerCase());
          await expectRefused(await endpoint.call(body));
        }),
        { numRuns: 60 },
      );
      expect(await stored()).toBe(events);
      // No channel made from what was sent (other test files make channels of their own meanwhile).
      const made = (await rt.store.listThreads()).filter((t) => !threadsBefore.has(t.id) && sentNames.has(t.name.toLowerCase()));
      expect(made.map((t) => t.name)).toEqual([]);
    });
  }
});

async function expectRefused(res: Response) {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.status, text.slice(0, 300)).toBeLessThan(500);
  const body = JSON.parse(text) as { error: { code: unknown; message: unknown } };
  expect(typeof body.error.code).toBe("string");
  expect(typeof body.error.message).toBe("string");
}
