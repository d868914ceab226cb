/** CAP (seed 000) schemas and the CAP ↔ Clutch converters. */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { AgentCardSchema } from "./agent-card";
import {
  CapAttachmentSchema,
  CapConversionError,
  CapManifestSchema,
  CapMessageSchema,
  capAgentIdToClutch,
  capToClutch,
  clutchAgentIdToCap,
  clutchToCap,
  describeCapAgent,
  manifestToAgentCard,
  type CapMessage,
} from "./cap";
import { ClutchMessageSchema, type ClutchMessage } from "./envelope";
import { isId } from "./ids";

const DIR = fileURLToPath(new URL("../../test/fixtures/seeds/", import.meta.url));
const load = <T = Record<string, unknown>>(f: string): T => JSON.parse(readFileSync(DIR + f, "utf8")) as T;
const capMessageFixtures = readdirSync(DIR).filter((f) => /^000-msg-.+\.json$/.test(f)).sort();
const manifestFixtures = readdirSync(DIR).filter((f) => /^000-manifest-(?!schema\.json$).+\.json$/.test(f)).sort();

const CTX = { thread_id: "thr_demo", run_id: "run_demo" };

/** The issues of a failed parse as `[path, message]` pairs. */
function issuesOf(fn: () => unknown): Array<[Array<PropertyKey>, string]> {
  try {
    fn();
  } catch (e) {
    if (e instanceof ZodError) return e.issues.map((i) => [i.path, i.message]);
    throw e;
  }
  throw new Error("expected a ZodError, but parsing succeeded");
}

/** CAP → Clutch → JSON (as the event store keeps it) → Clutch → CAP. */
function roundTrip(cap: unknown, ctx = CTX): CapMessage {
  const clutch = capToClutch(cap, ctx);
  const stored = ClutchMessageSchema.parse(JSON.parse(JSON.stringify(clutch)));
  return clutchToCap(stored);
}

describe("CAP → Clutch → CAP round trip", () => {
  it("covers every CAP message fixture", () => {
    expect(capMessageFixtures.length).toBeGreaterThanOrEqual(15);
  });

  it.each(capMessageFixtures)("%s comes back deep-equal", (file) => {
    const cap = load(file);
    const clutch = capToClutch(cap, CTX);
    expect(ClutchMessageSchema.safeParse(clutch).success).toBe(true);
    expect(roundTrip(cap)).toStrictEqual(cap);
  });

  it("keeps unknown top-level fields, timestamp, attachment extras and colliding attachment keys", () => {
    const cap = {
      type: "delegation_notice",
      task_id: "T9",
      sender_id: "pm-1",
      recipient_id: "analyst-1",
      context_summary: "Look at Q3 too.",
      timestamp: "2026-03-01T10:00:00+01:00",
      priority: 3,
      labels: { team: ["sales"], urgent: null },
      attachments: [
        { type: "file", url: "https://example.com/q3.csv", sha256: "abc", kind: "csv" },
        { type: "tool_call_result", server_id: "DataServer", tool: "query_data", result: null, ref: 42 },
        { type: "python_object", object: [1, { a: "b" }], ref: "artifact:obj_1" },
      ],
    };
    const clutch = capToClutch(cap, CTX);
    expect(clutch.meta).toEqual({
      framework: "cap",
      cap: {
        fields: { timestamp: "2026-03-01T10:00:00+01:00", priority: 3, labels: { team: ["sales"], urgent: null } },
        attachment_fields: { "0": { kind: "csv" }, "1": { ref: 42 } },
      },
    });
    expect(clutch.attachments).toEqual([
      { kind: "file", url: "https://example.com/q3.csv", sha256: "abc" },
      { kind: "tool_call_result", server_id: "DataServer", tool: "query_data", result: null },
      { kind: "python_object", object: [1, { a: "b" }], ref: "artifact:obj_1" },
    ]);
    expect(clutch.ts).toBe("2026-03-01T10:00:00+01:00");
    expect(roundTrip(cap)).toStrictEqual(cap);
  });

  it("keeps the difference between no attachments and an empty list", () => {
    const without = load("000-msg-flow-03-message-user-replies.json");
    const withEmpty = load("000-msg-flow-01-delegation-notice-orchestrator-to-pm.json");
    expect(capToClutch(without, CTX)).not.toHaveProperty("attachments");
    expect(capToClutch(withEmpty, CTX).attachments).toEqual([]);
    expect(roundTrip(without)).not.toHaveProperty("attachments");
    expect(roundTrip(withEmpty).attachments).toEqual([]);
  });

  it("detects a lost field (the comparison can fail)", () => {
    const cap = { ...load("000-msg-flow-03-message-user-replies.json"), mood: "curious" };
    const clutch = capToClutch(cap, CTX);
    delete (clutch.meta!.cap as { fields?: unknown }).fields;
    expect(clutchToCap(clutch)).not.toStrictEqual(cap);
  });
});

describe("capToClutch", () => {
  it("maps message → chat.message: content, sender, recipient, task, attachments", () => {
    const msg = capToClutch(load("000-msg-flow-02-message-pm-asks-user.json"), {
      ...CTX,
      id: "msg_fixed",
      ts: "2026-02-01T13:20:11.123Z",
    });
    expect(msg).toEqual({
      v: "clutch/0.1",
      id: "msg_fixed",
      ts: "2026-02-01T13:20:11.123Z",
      thread_id: "thr_demo",
      run_id: "run_demo",
      task_id: "T1",
      from: { agent_id: "agent:pm-1", role: "worker" },
      to: [{ agent_id: "user", role: "human" }],
      type: "chat.message",
      payload: { text: "To clarify, do you want regional breakdowns, customer segments, or overall trend insight?" },
      attachments: [{ kind: "tool_call_result", server_id: "DocsServer", tool: "read_file", result: "...project spec..." }],
      meta: { framework: "cap", cap: {} },
    });
  });

  it("maps the user as a human sender and the orchestrator by role", () => {
    const fromUser = capToClutch(load("000-msg-flow-03-message-user-replies.json"), CTX);
    expect(fromUser.from).toEqual({ agent_id: "user", role: "human" });
    expect(fromUser.to).toEqual([{ agent_id: "agent:pm-1", role: "worker" }]);
    const toOrch = capToClutch(load("000-msg-flow-12-message-pm-reports.json"), CTX);
    expect(toOrch.to).toEqual([{ agent_id: "agent:orchestrator", role: "orchestrator" }]);
  });

  it("maps delegation_notice → task.request with context_summary and the parent task from ctx", () => {
    const msg = capToClutch(load("000-msg-flow-05-delegation-notice-pm-to-analyst.json"), {
      ...CTX,
      parent_task_id: "T1",
    });
    expect(msg.type).toBe("task.request");
    expect(msg.task_id).toBe("T1.1");
    expect(msg.parent_task_id).toBe("T1");
    expect(msg.payload).toEqual({ context_summary: expect.stringMatching(/^The user asked us to analyze/) });
    expect(msg.attachments?.map((a) => a.kind)).toEqual(["tool_call_result", "tool_call_result", "text_snippet"]);
    expect(msg.attachments?.[0]).toEqual({
      kind: "tool_call_result",
      server_id: "DataServer",
      tool: "query_data",
      result: { range: "Q4", filters: { clients: ["ClientA", "ClientB"], all_products: true } },
    });
  });

  it("leaves parent_task_id out when ctx has none", () => {
    const msg = capToClutch(load("000-msg-flow-01-delegation-notice-orchestrator-to-pm.json"), CTX);
    expect(msg).not.toHaveProperty("parent_task_id");
  });

  it("maps oversight_inquiry → chat.message flagged as an inquiry that expects a reply", () => {
    const cap = load<{ inquiry: string }>("000-msg-flow-09-oversight-inquiry-qa-to-analyst.json");
    const msg = capToClutch(cap, CTX);
    expect(msg.type).toBe("chat.message");
    expect(msg.payload).toEqual({ text: cap.inquiry, inquiry: true, expects_reply: true });
    expect(msg.attachments).toEqual([{ kind: "file", path: "/tmp/qa_eda_report_findings_with_explanations.md" }]);
  });

  it("maps error_response → task.error with a string code and the numeric CAP code in details", () => {
    const msg = capToClutch(load("000-msg-error-response-504.json"), CTX);
    expect(msg.type).toBe("task.error");
    expect(msg.payload).toEqual({ code: "CAP_504", message: "MCP timeout.", details: { cap_error_code: 504 } });
    expect(msg.from.agent_id).toBe("agent:agent-x");
    expect(msg.to[0].agent_id).toBe("agent:agent-y");
  });

  it("makes a new msg_ id and uses ctx.ts, unless the CAP timestamp is a date", () => {
    const cap = load("000-msg-flow-03-message-user-replies.json");
    const a = capToClutch(cap, { ...CTX, ts: "2026-01-01T00:00:00.000Z" });
    expect(isId("message", a.id)).toBe(true);
    expect(a.ts).toBe("2026-01-01T00:00:00.000Z");
    expect(capToClutch({ ...cap, timestamp: 1767225600000 }, CTX).ts).toBe("2026-01-01T00:00:00.000Z");
    expect(capToClutch({ ...cap, timestamp: "not a date" }, { ...CTX, ts: "2026-01-02T00:00:00Z" }).ts).toBe(
      "2026-01-02T00:00:00Z",
    );
    expect(Date.parse(capToClutch(cap, CTX).ts)).not.toBeNaN();
  });

  it("rejects input that is not a CAP message with zod issues", () => {
    expect(issuesOf(() => capToClutch({ type: "handoff", task_id: "T1" }, CTX))).toEqual([
      [["type"], 'unknown CAP message type "handoff"; expected one of message, delegation_notice, oversight_inquiry, error_response'],
    ]);
  });

  it("rejects a CAP message that makes no valid ClutchMessage (empty content)", () => {
    const cap = { ...load("000-msg-flow-03-message-user-replies.json"), content: "" };
    expect(CapMessageSchema.safeParse(cap).success).toBe(true);
    expect(issuesOf(() => capToClutch(cap, CTX))).toEqual([[["payload", "text"], "chat.message: a message needs text"]]);
  });
});

describe("clutchToCap on Clutch-born messages", () => {
  const base: ClutchMessage = {
    v: "clutch/0.1",
    id: "msg_1",
    ts: "2026-02-01T13:20:11.123Z",
    thread_id: "thr_1",
    run_id: "run_1",
    task_id: "task_1",
    from: { agent_id: "human:ada", role: "human" },
    to: [{ agent_id: "agent:pm-1" }],
    type: "chat.message",
    payload: { text: "Hello", mentions: ["agent:pm-1"] },
  };

  it("maps a human's chat.message to a CAP message from user, with a timestamp", () => {
    expect(clutchToCap(base)).toStrictEqual({
      timestamp: "2026-02-01T13:20:11.123Z",
      type: "message",
      task_id: "task_1",
      sender_id: "user",
      recipient_id: "pm-1",
      content: "Hello",
    });
  });

  it("maps an artifact_ref attachment to a CAP file with a url", () => {
    const cap = clutchToCap({ ...base, attachments: [{ kind: "artifact_ref", ref: "artifact:report_456" }] });
    expect(cap.attachments).toEqual([{ type: "file", url: "artifact:report_456" }]);
  });

  it("maps task.request, preferring context_summary, then instructions", () => {
    const req = { ...base, type: "task.request" as const, from: { agent_id: "agent:orchestrator" } };
    expect(clutchToCap({ ...req, payload: { instructions: "Do X", title: "X" } })).toMatchObject({
      type: "delegation_notice",
      sender_id: "orchestrator",
      context_summary: "Do X",
    });
    expect(clutchToCap({ ...req, payload: {} })).toMatchObject({ context_summary: "" });
  });

  it("maps task.error codes: CAP_<n> → n, anything else → 500 with clutch_code", () => {
    const err = { ...base, type: "task.error" as const, from: { agent_id: "agent:ken" } };
    expect(clutchToCap({ ...err, payload: { code: "CAP_404", message: "gone" } })).toMatchObject({
      error_code: 404,
      error_message: "gone",
    });
    const other = clutchToCap({ ...err, payload: { code: "TOOL_UNAVAILABLE", message: "down", retryable: true } });
    expect(other).toMatchObject({ type: "error_response", error_code: 500, clutch_code: "TOOL_UNAVAILABLE" });
  });

  it("refuses types, recipients and attachments CAP cannot carry", () => {
    const reasons = (m: unknown) => {
      try {
        clutchToCap(m);
      } catch (e) {
        return e instanceof CapConversionError ? e.reason : String(e);
      }
      return "converted";
    };
    expect(reasons({ ...base, type: "task.progress", payload: { percent: 10 } })).toBe("no_cap_type");
    expect(reasons({ ...base, to: [{ agent_id: "agent:a" }, { agent_id: "agent:b" }] })).toBe("recipients");
    expect(reasons({ ...base, to: [] })).toBe("recipients");
    expect(reasons({ ...base, attachments: [{ kind: "image", ref: "artifact:x" }] })).toBe("attachment_kind");
    expect(reasons({ ...base, meta: { cap: { fields: "oops" } } })).toBe("bad_meta");
    expect(() => clutchToCap({ ...base, ts: "yesterday" })).toThrow(ZodError);
  });
});

describe("agent ids", () => {
  it("prefix CAP agents with agent: and keep user; the inverse strips exactly one prefix", () => {
    expect(capAgentIdToClutch("pm-1")).toBe("agent:pm-1");
    expect(capAgentIdToClutch("user")).toBe("user");
    expect(clutchAgentIdToCap({ agent_id: "agent:pm-1" })).toBe("pm-1");
    expect(clutchAgentIdToCap({ agent_id: "user" })).toBe("user");
    expect(clutchAgentIdToCap({ agent_id: "human:ada", role: "human" })).toBe("user");
    for (const id of ["pm-1", "agent:odd", "orchestrator", "user"]) {
      expect(clutchAgentIdToCap({ agent_id: capAgentIdToClutch(id) })).toBe(id);
    }
  });
});

describe("CAP schemas reject bad input with useful paths", () => {
  const message = load("000-msg-base-message.json");

  it("message without content", () => {
    const { content: _c, ...rest } = message;
    expect(issuesOf(() => CapMessageSchema.parse(rest))).toEqual([[["content"], "content must be a string"]]);
  });

  it("error_response with a string error_code", () => {
    const err = { ...load("000-msg-error-response-504.json"), error_code: "504" };
    expect(issuesOf(() => CapMessageSchema.parse(err))).toEqual([[["error_code"], "error_code must be a number, e.g. 504"]]);
    expect(issuesOf(() => CapMessageSchema.parse({ ...err, error_code: 5.5 }))).toEqual([
      [["error_code"], "error_code must be an integer"],
    ]);
  });

  it("file attachment without path or url, unknown attachment type, tool result without result", () => {
    expect(issuesOf(() => CapMessageSchema.parse({ ...message, attachments: [{ type: "file" }] }))).toEqual([
      [["attachments", 0, "path"], "a file attachment needs a path or a url"],
    ]);
    expect(issuesOf(() => CapMessageSchema.parse({ ...message, attachments: [{ type: "image", src: "x" }] }))).toEqual([
      [
        ["attachments", 0, "type"],
        'unknown CAP attachment type "image"; expected one of tool_call_result, file, python_object, text_snippet',
      ],
    ]);
    expect(
      issuesOf(() => CapAttachmentSchema.parse({ type: "tool_call_result", server_id: "DocsServer", tool: "read_file" })),
    ).toEqual([[["result"], expect.any(String)]]);
    expect(CapAttachmentSchema.parse({ type: "file", url: "https://x/y" })).toEqual({ type: "file", url: "https://x/y" });
  });

  it("empty sender_id", () => {
    expect(issuesOf(() => CapMessageSchema.parse({ ...message, sender_id: "" }))).toEqual([
      [["sender_id"], "sender_id must not be empty"],
    ]);
  });
});

describe("CapManifestSchema", () => {
  const pm = load("000-manifest-pm-1.json");

  it("keeps unknown fields", () => {
    const parsed = CapManifestSchema.parse({ ...pm, model: "gpt-x", mcp_bindings: [{ ...(pm.mcp_bindings as object[])[0], rate: 5 }] });
    expect(parsed).toMatchObject({ model: "gpt-x", mcp_bindings: [{ server_id: "DocsServer", rate: 5 }] });
  });

  it("reports a delegate rule without when_to_delegate at its path", () => {
    const bad = { ...pm, delegate_rules: { "analyst-1": { when: "always" } } };
    expect(issuesOf(() => CapManifestSchema.parse(bad))).toEqual([
      [["delegate_rules", "analyst-1", "when_to_delegate"], "when_to_delegate must be a string (the natural-language rule)"],
    ]);
  });

  it("rejects a delegate_rules key that is not an agent id", () => {
    const bad = { ...pm, allowed_agents: ["analyst 1"], delegate_rules: { "analyst 1": { when_to_delegate: "x" } } };
    expect(issuesOf(() => CapManifestSchema.parse(bad))).toEqual([[["delegate_rules", "analyst 1"], 'delegate_rules key "analyst 1" is not an agent id matching ^[A-Za-z0-9_-]+$'],
    ]);
    expect(issuesOf(() => CapManifestSchema.parse({ ...pm, delegate_rules: [] }))).toEqual([
      [["delegate_rules"], "delegate_rules must be an object keyed by agent id"]]);
  });

  it("rejects a delegate rule for an agent outside allowed_agents", () => {
    const bad = { ...pm, delegate_rules: { ...(pm.delegate_rules as object), "qa-1": { when_to_delegate: "x" } } };
    expect(issuesOf(() => CapManifestSchema.parse(bad))).toEqual([
      [["delegate_rules", "qa-1"], 'delegate_rules names "qa-1", which is not in allowed_agents'],
    ]);
  });

  it("accepts a missing overseer and rejects a numeric one; requires scopes", () => {
    const { overseer: _o, ...noOverseer } = pm;
    expect(CapManifestSchema.safeParse(noOverseer).success).toBe(true);
    expect(issuesOf(() => CapManifestSchema.parse({ ...pm, overseer: 7 }))).toEqual([
      [["overseer"], "overseer must be an agent id or null"],
    ]);
    const { scopes: _s, ...binding } = (pm.mcp_bindings as Record<string, unknown>[])[0];
    expect(issuesOf(() => CapManifestSchema.parse({ ...pm, mcp_bindings: [binding] }))).toEqual([
      [["mcp_bindings", 0, "scopes"], "scopes must be an array of strings"],
    ]);
  });
});

describe("manifestToAgentCard", () => {
  it.each(manifestFixtures)("%s gives a valid AgentCard", (file) => {
    const card = manifestToAgentCard(load(file));
    expect(AgentCardSchema.safeParse(card).success).toBe(true);
    expect(card.agent_id).toBe(`agent:${load(file).id}`);
  });

  it("derives pm-1's card: name, desc, skill, MCP servers and bindings, limits", () => {
    expect(manifestToAgentCard(load("000-manifest-pm-1.json"))).toEqual({
      v: "clutch/0.1",
      agent_id: "agent:pm-1",
      display: { name: "Project Manager", desc: "Break down incoming tasks and delegate to specialists." },
      capabilities: [
        { id: "skill:project-manager", tools: ["mcp:DocsServer", "mcp:DataServer"], trust_level: "sandbox" },
        {
          id: "tool:mcp",
          servers: ["mcp:DocsServer", "mcp:DataServer"],
          mcp_bindings: [
            {
              server: "mcp:DocsServer",
              description: "Read specifications and generate summaries.",
              scopes: ["read:docs", "write:summary"],
              allowed_tools: ["list_documents", "read_file", "create_summary"],
            },
            {
              server: "mcp:DataServer",
              description: "Access raw sales data.",
              scopes: ["read:data"],
              allowed_tools: ["query_data"],
            },
          ],
        },
      ],
      limits: { max_concurrency: 1 },
      security: { sandbox: true },
    });
  });

  it("names analyst-1 and qa-1 from their prompts", () => {
    const analyst = manifestToAgentCard(load("000-manifest-analyst-1.json"));
    expect(analyst.display).toEqual({ name: "Analyst Agent", desc: "Responsible for detailed data analysis and reporting." });
    expect(analyst.capabilities.map((c) => c.id)).toEqual(["skill:analyst", "tool:mcp"]);
    const qa = manifestToAgentCard(load("000-manifest-qa-1.json"), { max_concurrency: 3 });
    expect(qa.display.name).toBe("QA Agent");
    expect(qa.capabilities[0].id).toBe("skill:qa");
    expect(qa.capabilities[1].servers).toEqual(["mcp:SummaryServer"]);
    expect(qa.limits).toEqual({ max_concurrency: 3 });
  });

  it("falls back to the id without MCP bindings or a 'You are' prompt", () => {
    const card = manifestToAgentCard({
      id: "writer-2",
      system_prompt: "Write crisp release notes.",
      allowed_agents: [],
      delegate_rules: {},
      mcp_bindings: [],
    });
    expect(card.display).toEqual({ name: "writer-2", desc: "Write crisp release notes." });
    expect(card.capabilities).toEqual([{ id: "skill:writer", trust_level: "sandbox" }]);
    expect(describeCapAgent("x", "").desc).toBeUndefined();
  });

  it("throws zod issues for an invalid manifest or limit", () => {
    expect(issuesOf(() => manifestToAgentCard({ id: "a" }))[0][0]).toEqual(["system_prompt"]);
    expect(issuesOf(() => manifestToAgentCard(load("000-manifest-qa-1.json"), { max_concurrency: 0 }))[0][0]).toEqual([
      "limits",
      "max_concurrency",
    ]);
  });
});
