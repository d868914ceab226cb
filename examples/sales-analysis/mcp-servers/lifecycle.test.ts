/**
 * The example's stdio MCP servers end with the process that started them: a parent that is
 * SIGKILLed (no chance to close anything) leaves no server behind, and a server whose output
 * pipes break exits instead of spinning on its own EPIPE errors. Real processes throughout.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";

const SERVERS = ["docs-server.ts", "data-server.ts", "summary-server.ts"];

/** A parent process that starts `server`, sends it the MCP handshake and one call, and prints the server's pid. */
const PARENT = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["--import", "tsx", process.argv[1]], { stdio: ["pipe", "pipe", "pipe"] });
const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
child.stdout.once("data", () => {
  send({ method: "notifications/initialized" });
  send({ id: 2, method: "tools/list" });
  console.log(String(child.pid));
});
setInterval(() => {}, 1000);
`;

/** True while `pid` runs. A process that has exited but is not yet reaped (a zombie, state Z) is gone. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true; // no /proc: trust kill(0)
  }
};

async function exitsWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe("an MCP server whose parent is SIGKILLed", () => {
  for (const server of SERVERS) {
    it(`${server} exits within 2 s`, async () => {
      const parent = spawn(process.execPath, ["-e", PARENT, new URL(server, import.meta.url).pathname], { stdio: ["ignore", "pipe", "inherit"] });
      const pid = await new Promise<number>((resolve, reject) => {
        parent.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim())));
        parent.once("exit", () => reject(new Error("the parent exited before the server was up")));
      });
      expect(alive(pid)).toBe(true);
      parent.kill("SIGKILL");
      const gone = await exitsWithin(pid, 2_000);
      if (!gone) process.kill(pid, "SIGKILL");
      expect(gone).toBe(true);
    });
  }
});

describe("an MCP server whose stdout and stderr break while its stdin stays open", () => {
  // Its answer fails with EPIPE; so would any log line. It must exit, not loop on its own errors.
  for (const server of SERVERS) {
    it(`${server} exits within 2 s`, async () => {
      const child = spawn(process.execPath, ["--import", "tsx", new URL(server, import.meta.url).pathname], { stdio: ["pipe", "pipe", "pipe"] });
      await new Promise<void>((resolve) => child.stderr.on("data", (d: Buffer) => String(d).includes("ready on stdio") && resolve()));
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) + "\n");
      const gone = await exitsWithin(child.pid!, 2_000);
      if (!gone) child.kill("SIGKILL");
      expect(gone).toBe(true);
    });
  }
});
