/**
 * The "register an agent" commands people copy work as pasted (docs/identity.md, "API keys"):
 * the README's block and the agent directory's (components/agents/register-commands.ts) make the
 * agent's key first, then register and beat with `Authorization: Bearer $KEY`. Each is run with
 * bash and curl against a Clutch's routes on a real port, and the agent must then be registered
 * and online. (Without a key, registering answers 401 and nothing is registered.)
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@/lib/protocol";
import type { Clutch } from "@/server/clutch";
import { SYSTEM } from "@/server/auth/principal";
import { frontDoor } from "@/server/http/front-door";
import { EXAMPLE_AGENT_ID, registerCommands } from "@/components/agents/register-commands";
import * as authRoute from "@/app/api/auth/[...all]/route";
import * as agentsRoute from "@/app/api/agents/route";
import * as agentKeysRoute from "@/app/api/agents/[agent_id]/keys/route";
import * as heartbeatRoute from "@/app/api/agents/[agent_id]/heartbeat/route";
import { testClutch } from "./helpers";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
/** The routes the commands call, by path pattern. */
const ROUTES: [RegExp, Handler][] = [
  [/^\/api\/auth\/.+$/, authRoute.POST],
  [/^\/api\/agents$/, agentsRoute.POST],
  [/^\/api\/agents\/(?<agent_id>[^/]+)\/keys$/, agentKeysRoute.POST],
  [/^\/api\/agents\/(?<agent_id>[^/]+)\/heartbeat$/, heartbeatRoute.POST],
];

const ADMIN_PASSWORD = "admin's long password";
let rt: Clutch;
let http: Server;
let origin: string;
let adminEmail: string;
let adminKey: string;
let dir: string;
beforeAll(async () => {
  rt = await testClutch();
  const { token } = await rt.identity.invite(SYSTEM, "admin");
  adminEmail = `root-${newId("user").slice(-10).toLowerCase()}@test.local`;
  const { person } = await rt.identity.acceptInvite(token, { name: "Root", email: adminEmail, password: ADMIN_PASSWORD });
  adminKey = (await rt.identity.keys.create(person.agent_id, "mine", "system")).key;
  http = createServer((req, res) => {
    if (frontDoor(req, res, "img-src 'self'")) return;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(`http://${req.headers.host}${req.url}`);
      const found = ROUTES.map(([re, h]) => [re.exec(url.pathname), h] as const).find(([m]) => m);
      if (!found || req.method !== "POST") return void res.writeHead(404).end();
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const params = Object.fromEntries(Object.entries(found[0]!.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      const answer = await found[1](new Request(url, { method: "POST", headers, body: chunks.length ? Buffer.concat(chunks) : null }), { params: Promise.resolve(params) });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-register-"));
});
afterAll(async () => {
  await new Promise((r) => http.close(r));
  await rt.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Run `script` with bash in a scratch folder; resolves its output (stdout and stderr). */
function bash(script: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", ["-c", script], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stdout}\n${stderr}`));
      else resolve(`${stdout}\n${stderr}`);
    });
  });
}

/** The agent is registered (an external agent) and online. */
async function expectRegistered(agent_id: string) {
  for (let i = 0; i < 50 && !rt.registry.get(agent_id); i++) await new Promise((r) => setTimeout(r, 100));
  expect(rt.registry.get(agent_id)?.source, `${agent_id} is registered`).toBe("external");
  expect(rt.registry.isOnline(agent_id)).toBe(true);
}

describe("register an agent", () => {
  it("the README's commands make a key, register with it and beat", async () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, "../README.md"), "utf8");
    const block = /External agents join over HTTP[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    expect(block).toMatch(/\/api\/agents\/agent%3Aken\/keys/);
    expect(block).toMatch(/-H "Authorization: Bearer \$KEY"[^\n]*\n[\s\S]*heartbeat -H "Authorization: Bearer \$KEY"/);
    const name = `ken${newId("user").slice(-8).toLowerCase()}`;
    // The agent's id and name are this run's own: names are unique across agents and the test database is shared.
    const script = block!
      .replaceAll("localhost:3000", origin.slice("http://".length))
      .replaceAll("agent%3Aken", `agent%3A${name}`)
      .replaceAll("agent:ken", `agent:${name}`)
      .replaceAll('"name": "Ken"', `"name": "Ken ${name}"`);
    expect(script).toContain(`"name": "Ken ${name}"`);
    const out = await bash(`set -e\n${script}`, { CLUTCH_ADMIN_EMAIL: adminEmail, CLUTCH_ADMIN_PASSWORD: ADMIN_PASSWORD });
    expect(out).not.toMatch(/unauthenticated|forbidden|"error"/);
    await expectRegistered(`agent:${name}`);
  });

  it("the agent directory's commands, pasted in order with ME set, make a key, register with it and beat", async () => {
    const { key, register, beat } = registerCommands(origin);
    expect(key).toMatch(/^ME=clk_\.\.\./);
    expect(register).toContain('-H "Authorization: Bearer $KEY"');
    expect(beat).toContain('-H "Authorization: Bearer $KEY"');
    const name = `research${newId("user").slice(-8).toLowerCase()}`;
    const unique = (s: string) =>
      s
        .replaceAll(EXAMPLE_AGENT_ID, `agent:${name}`)
        .replaceAll(encodeURIComponent(EXAMPLE_AGENT_ID), encodeURIComponent(`agent:${name}`))
        .replaceAll('"name":"Research"', `"name":"Research ${name}"`);
    expect(unique(register)).toContain(`"name":"Research ${name}"`);
    const script = [unique(key).replace(/^ME=clk_\.\.\.[^\n]*/, `ME=${adminKey}`), unique(register), unique(beat)].join("\n");
    const out = await bash(`set -e\n${script}`);
    expect(out).not.toMatch(/unauthenticated|forbidden|"error"/);
    await expectRegistered(`agent:${name}`);
  });
});
