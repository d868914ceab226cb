/**
 * Signed messages (Clutch Protocol §6; docs/identity.md): an agent whose AgentCard declares an
 * Ed25519 key must sign each envelope (RFC 8785 canonical JSON without the signature). Through
 * POST /api/events with the agent's key: a valid signature is stored as sent; a tampered payload,
 * an unknown kid or a missing signature is refused with 403 and stores nothing; an agent without
 * keys is unaffected; a stolen API key cannot remove the keys from the card, an admin can replace
 * them (test/security-regressions.test.ts holds the same rule on an appended agent.register).
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, PROTOCOL_VERSION, type ClutchMessage } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { signEnvelope, signingBytes } from "@/server/auth/signatures";
import * as eventsRoute from "@/app/api/events/route";
import * as agentsRoute from "@/app/api/agents/route";
import { chat, newThread, requestAs, testAgent, testClutch, testPerson, type TestPrincipal } from "./helpers";

let rt: Clutch;
let thread_id: string;
let signer: TestPrincipal;
let plain: TestPrincipal;
const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const other = generateKeyPairSync("ed25519");
const AGENT = `agent:signer-${newId("user").slice(-6).toLowerCase()}`;
const card = (keys: unknown) => ({ v: PROTOCOL_VERSION, agent_id: AGENT, display: { name: "Signer" }, capabilities: [{ id: "skill:ledger", version: "1.0" }], security: { keys } });
const KEYS = [{ kid: "k1", alg: "ed25519", public_key: publicKey.export({ format: "jwk" }).x }];

beforeAll(async () => {
  rt = await testClutch();
  thread_id = await newThread(rt, "signed");
  signer = await testAgent(rt, AGENT);
  plain = await testAgent(rt, `agent:plain-${newId("user").slice(-6).toLowerCase()}`);
  const res = await agentsRoute.POST(requestAs(signer, "http://t/api/agents", { method: "POST", body: JSON.stringify(card(KEYS)) }));
  expect(res.status).toBe(201);
});
afterAll(() => rt.stop());

const post = (as: TestPrincipal, body: unknown) => eventsRoute.POST(requestAs(as, "http://t/api/events", { method: "POST", body: JSON.stringify(body) }));
const mine = (text: string): ClutchMessage => chat(text, { thread_id, run_id: newId("run"), from: { agent_id: AGENT, role: "worker" } });
const stored = async (m: ClutchMessage) => (await rt.store.read({ run_id: m.run_id })).events;

describe("signed messages", () => {
  it("a correctly signed envelope is stored as sent, signature included", async () => {
    const m = signEnvelope(mine("signed and sealed"), { kid: "k1", privateKey });
    const res = await post(signer, m);
    expect(res.status).toBe(201);
    const [ev] = await stored(m);
    expect(ev!.security?.auth).toMatchObject({ scheme: "ed25519", kid: "k1", sig: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) });
    // What is stored still verifies: its signed bytes are those the agent signed.
    const { seq: _seq, ...envelope } = ev!;
    expect(signingBytes(envelope).toString()).toBe(signingBytes(m).toString());
  });

  const refused: [string, () => ClutchMessage, string][] = [
    ["a payload changed after signing", () => ({ ...signEnvelope(mine("pay 10"), { kid: "k1", privateKey }), payload: { text: "pay 1000" } }), "signature_invalid"],
    ["a key the card does not list", () => signEnvelope(mine("who am I"), { kid: "k9", privateKey }), "unknown_kid"],
    ["the right kid with another key", () => signEnvelope(mine("forged"), { kid: "k1", privateKey: other.privateKey }), "signature_invalid"],
    ["no signature at all", () => mine("unsigned"), "signature_required"],
  ];
  for (const [what, make, code] of refused) {
    it(`${what}: 403 ${code}, nothing stored`, async () => {
      const m = make();
      const res = await post(signer, m);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
      expect(await stored(m)).toEqual([]);
    });
  }

  it("an agent whose card declares no keys posts unsigned as before", async () => {
    const m = chat("no keys here", { thread_id, run_id: newId("run"), from: { agent_id: plain.agent_id, role: "worker" } });
    expect((await post(plain, m)).status).toBe(201);
  });

  it("the agent's API key alone cannot remove its signing keys from the card", async () => {
    const res = await agentsRoute.POST(requestAs(signer, "http://t/api/agents", { method: "POST", body: JSON.stringify(card(undefined)) }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("keys_locked");
    expect(rt.registry.get(AGENT)?.card.security?.keys).toHaveLength(1);
  });

  it("an admin may replace them", async () => {
    const admin = await testPerson(rt, "admin");
    const rotated = [{ kid: "k2", alg: "ed25519", public_key: other.publicKey.export({ format: "jwk" }).x }];
    const res = await agentsRoute.POST(requestAs(admin, "http://t/api/agents", { method: "POST", body: JSON.stringify(card(rotated)) }));
    expect(res.status).toBe(200);
    expect(rt.registry.get(AGENT)?.card.security?.keys).toEqual(rotated);
  });
});
