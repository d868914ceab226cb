/**
 * The policy kernel: rule matching and every decision kind; a throttled call
 * is delayed and retried, never lost; an invalid policy file keeps the last good one; a failure
 * while deciding denies.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PolicyKernel, parsePolicy } from "./kernel";
import { matches, type Subject } from "./rules";

const POLICY = `
version: 1
default: allow
rules:
  - id: no-drop
    match: { tool: { server_id: DataServer, tool: drop_table } }
    decision: deny
    reason: Tables are never dropped
  - id: approve-process-data
    match: { tool: { server_id: DataServer, tool: process_data } }
    decision: require_approval
    approvers: [user:dana]
    reason: Processing data changes what the analysis rests on
  - id: approve-report
    match: { agent: pm-1, tool: reply, recipient: user }
    decision: require_approval
  - id: throttle-queries
    match: { tool: { server_id: DataServer, tool: query_data } }
    decision: throttle
    rate: { max: 2, window_sec: 10, per: agent }
    delay_ms: 500
  - id: limit-analyst
    match: { agent: analyst-1, kind: tool_call }
    decision: constrain
    limits: { max_tool_calls: 5, sandbox_only_tools: [summarize] }
  - id: risky-dispatch
    match: { kind: dispatch, risk_tags: [payments, pii] }
    decision: require_approval
`;

const call = (agent: string, server_id: string | undefined, tool: string, extra: Partial<Subject> = {}): Subject => ({
  kind: "tool_call",
  agent,
  ...(server_id ? { server_id } : {}),
  tool,
  ...extra,
});

function kernelWith(text: string, now = () => 0) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "clutch-policy-"));
  const file = path.join(dir, "clutch.policy.yaml");
  fs.writeFileSync(file, text);
  return { kernel: new PolicyKernel(file, { now }), file };
}

describe("matching", () => {
  it.each([
    [{ agent: "pm-1" }, call("agent:pm-1", "X", "t"), true],
    [{ agent: ["qa-1", "pm-1"] }, call("agent:pm-1", "X", "t"), true],
    [{ agent: "pm-1" }, call("agent:qa-1", "X", "t"), false],
    [{ tool: { server_id: "DataServer" } }, call("agent:a", "DataServer", "query_data"), true],
    [{ tool: { server_id: "DataServer", tool: "process_data" } }, call("agent:a", "DataServer", "query_data"), false],
    [{ tool: "reply" }, call("agent:a", undefined, "reply"), true],
    [{ tool: "reply" }, call("agent:a", "Srv", "reply"), false],
    [{ tool: "reply" }, { kind: "dispatch", agent: "agent:a" } as Subject, false],
    [{ recipient: "user" }, call("agent:a", undefined, "reply", { recipient: "user" }), true],
    [{ recipient: "analyst-1" }, call("agent:a", undefined, "reply", { recipient: "agent:analyst-1" }), true],
    [{ capability: "skill:analyst" }, { kind: "dispatch", agent: "agent:a", capabilities: ["skill:analyst", "tool:mcp"] } as Subject, true],
    [{ risk_tags: ["pii"] }, { kind: "dispatch", agent: "agent:a", risk_tags: ["finance", "pii"] } as Subject, true],
    [{ risk_tags: ["pii"] }, { kind: "dispatch", agent: "agent:a" } as Subject, false],
    [{ payload_type: "review.feedback.v1", domain: "review" }, call("agent:qa-1", undefined, "submit_result", { payload_type: "review.feedback.v1", domain: "review" }), true],
    [{ run_labels: ["prod"] }, call("agent:a", "S", "t", { run_labels: ["dev"] }), false],
    [{}, call("agent:a", "S", "t"), true],
  ])("%j on %j → %s", (match, subject, expected) => {
    expect(matches(parsePolicy(`version: 1\nrules: [{ id: r, decision: allow, match: ${JSON.stringify(match)} }]`).rules[0]!.match, subject)).toBe(expected);
  });
});

describe("decisions", () => {
  it("allows, denies with a reason, and requires approval from named people, first matching rule first", () => {
    const { kernel } = kernelWith(POLICY);
    expect(kernel.evaluate(call("agent:pm-1", "DocsServer", "read_file"))).toMatchObject({ decision: "allow", rule: null });
    expect(kernel.evaluate(call("agent:pm-1", "DataServer", "drop_table"))).toEqual({ decision: "deny", rule: "no-drop", reason: "Tables are never dropped" });
    expect(kernel.evaluate(call("agent:analyst-1", "DataServer", "process_data"))).toMatchObject({
      decision: "require_approval",
      rule: "approve-process-data",
      approvers: ["user:dana"],
    });
    expect(kernel.evaluate(call("agent:pm-1", undefined, "reply", { recipient: "user" }))).toMatchObject({ decision: "require_approval", approvers: "any" });
    expect(kernel.evaluate(call("agent:pm-1", undefined, "reply", { recipient: "agent:analyst-1" })).decision).toBe("allow");
    expect(kernel.evaluate({ kind: "dispatch", agent: "agent:x", risk_tags: ["payments"] }).decision).toBe("require_approval");
  });

  it("throttles beyond the rate with a delay, and allows the retry once the window moves: nothing is lost", () => {
    let now = 0;
    const { kernel } = kernelWith(POLICY, () => now);
    const q = call("agent:pm-1", "DataServer", "query_data");
    expect(kernel.evaluate(q).decision).toBe("allow");
    expect(kernel.evaluate(q).decision).toBe("allow");
    const third = kernel.evaluate(q);
    expect(third).toMatchObject({ decision: "throttle", rule: "throttle-queries", delay_ms: 10_000 });
    expect(kernel.evaluate(call("agent:qa-1", "DataServer", "query_data")).decision).toBe("allow"); // per agent
    now += third.delay_ms!;
    expect(kernel.evaluate(q).decision).toBe("allow"); // the delayed retry goes through
  });

  it("constrains: allows within limits, denies beyond them", () => {
    const { kernel } = kernelWith(POLICY);
    const t = call("agent:analyst-1", "SummaryServer", "summarize");
    expect(kernel.evaluate(t, { tool_calls: 2, sandboxed: true })).toMatchObject({ decision: "constrain", rule: "limit-analyst", limits: { max_tool_calls: 5 } });
    expect(kernel.evaluate(t, { tool_calls: 5, sandboxed: true })).toMatchObject({ decision: "deny", reason: expect.stringMatching(/limit of 5 tool calls/) });
    expect(kernel.evaluate(t, { tool_calls: 1, sandboxed: false })).toMatchObject({ decision: "deny", reason: expect.stringMatching(/only in the sandbox/) });
  });

  it("uses the configured default when no rule matches", () => {
    const { kernel } = kernelWith("version: 1\ndefault: require_approval\n");
    expect(kernel.evaluate(call("agent:a", "S", "t"))).toMatchObject({ decision: "require_approval", rule: null, approvers: "any" });
  });

  it("denies when the policy cannot be evaluated (fail closed)", () => {
    const { kernel } = kernelWith(POLICY);
    expect(kernel.evaluate(null as unknown as Subject)).toMatchObject({ decision: "deny", rule: null, reason: expect.stringMatching(/could not be evaluated/) });
  });
});

describe("the policy file", () => {
  it("keeps the last good policy when the file becomes invalid, says why, and recovers when fixed", () => {
    const { kernel, file } = kernelWith(POLICY);
    fs.writeFileSync(file, "version: 1\nrules:\n  - id: broken\n    decision: deny\n");
    const bad = kernel.load();
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/rules\.0\.reason: a deny rule needs a reason/);
    expect(kernel.evaluate(call("agent:pm-1", "DataServer", "drop_table")).rule).toBe("no-drop"); // still the last good
    fs.writeFileSync(file, "version: 1\nrules: [{ id: all, decision: deny, reason: closed }]\n");
    expect(kernel.load()).toMatchObject({ ok: true, error: null, rules: 1 });
    expect(kernel.evaluate(call("agent:pm-1", "DocsServer", "read_file")).decision).toBe("deny");
  });

  it("reloads by itself when the file changes", async () => {
    const { kernel, file } = kernelWith(POLICY);
    kernel.watch();
    fs.writeFileSync(file, "version: 1\ndefault: deny\n");
    const end = Date.now() + 5000;
    while (kernel.current().default !== "deny" && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    kernel.close();
    expect(kernel.current().default).toBe("deny");
  });

  it("rejects YAML errors, unknown decisions and duplicate rule ids with readable messages", () => {
    expect(() => parsePolicy("version: [")).toThrow(/not valid YAML/);
    expect(() => parsePolicy("version: 1\nrules: [{ id: a, decision: maybe }]")).toThrow(/rules\.0\.decision/);
    expect(() => parsePolicy("version: 1\nrules: [{ id: a, decision: allow }, { id: a, decision: allow }]")).toThrow(/used twice/);
    expect(() => parsePolicy("version: 1\napprovals: { on_timeout: escalate }")).toThrow(/escalate_to/);
  });

  it("allows everything when there is no policy file", () => {
    const kernel = new PolicyKernel(path.join(os.tmpdir(), "does-not-exist", "clutch.policy.yaml"));
    expect(kernel.status()).toMatchObject({ ok: true, rules: 0 });
    expect(kernel.evaluate(call("agent:a", "S", "t")).decision).toBe("allow");
  });
});
