/**
 * The shell commands the agent directory shows for registering an external agent
 * (docs/identity.md, "API keys"; Clutch Protocol §2.4), for the Clutch at `origin`:
 *
 * - `key`: an admin makes the agent's API key with their personal key `$ME`
 *   (`POST /api/agents/agent:research-1/keys`) and keeps it in `$KEY` (it is shown once);
 * - `register`: the agent posts its AgentCard (`POST /api/agents`) with `Authorization: Bearer $KEY`;
 * - `beat`: its heartbeat (`POST /api/agents/agent:research-1/heartbeat`), with the same key.
 *
 * Pasted in this order into one shell (with `ME` set), they work: test/register-commands.test.ts
 * runs them against a Clutch.
 */
export const EXAMPLE_AGENT_ID = "agent:research-1";

export function registerCommands(origin: string): { key: string; register: string; beat: string } {
  const card = {
    v: "clutch/0.1",
    agent_id: EXAMPLE_AGENT_ID,
    display: { name: "Research", desc: "Finds and summarises market research." },
    capabilities: [{ id: "skill:research", version: "1.0", tags: ["market"] }],
    limits: { max_concurrency: 2 },
  };
  // One top-level key a line: short enough to read, still valid JSON to paste.
  const json = `{\n${Object.entries(card)
    .map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(",\n")}\n  }`;
  const path = encodeURIComponent(EXAMPLE_AGENT_ID);
  const key = [
    "ME=clk_...   # your personal key (Settings → API keys); you must be an admin",
    `KEY=$(curl -s -X POST ${origin}/api/agents/${path}/keys \\`,
    `  -H "Authorization: Bearer $ME" \\`,
    `  -H 'content-type: application/json' -d '{"name":"research-1"}' \\`,
    `  | node -pe 'JSON.parse(require("fs").readFileSync(0)).key')`,
  ].join("\n");
  const register = `curl -X POST ${origin}/api/agents \\\n  -H "Authorization: Bearer $KEY" \\\n  -H 'content-type: application/json' \\\n  -d '${json}'`;
  const beat = `curl -X POST \\\n  ${origin}/api/agents/${path}/heartbeat \\\n  -H "Authorization: Bearer $KEY" \\\n  -H 'content-type: application/json' -d '{}'`;
  return { key, register, beat };
}
