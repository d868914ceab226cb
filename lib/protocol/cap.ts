/**
 * CAP, the internal Agent Protocol (seed 000), and its mapping onto Clutch Protocol v0 (seed 001).
 *
 * - Schemas: the agent manifest (seed 000 "JSON schema for agent definitions"), the four CAP
 *   messages (`message`, `delegation_notice`, `oversight_inquiry`, `error_response`) and the four
 *   attachment types (`tool_call_result`, `file`, `python_object`, `text_snippet`). Every object is
 *   loose: fields the seed does not name are kept, never stripped.
 * - Converters: `capToClutch` / `clutchToCap` (lossless for CAP → Clutch → CAP) and
 *   `manifestToAgentCard`.
 *
 * The field-by-field mapping is documented in docs/protocol.md ("CAP ↔ Clutch"). In short:
 *
 * | CAP                         | Clutch                                                        |
 * | --------------------------- | ------------------------------------------------------------- |
 * | `message`                   | `chat.message`, `content` → `payload.text`                    |
 * | `delegation_notice`         | `task.request`, `context_summary` → `payload.context_summary` |
 * | `oversight_inquiry`         | `chat.message`, `inquiry` → `payload.text`, `payload.inquiry: true`, `payload.expects_reply: true` |
 * | `error_response`            | `task.error`, `payload.code: "CAP_<error_code>"`, `error_message` → `payload.message`, `payload.details.cap_error_code` |
 * | `sender_id` / `recipient_id`| `from` / `to[0]`; `"user"` ↔ `{ agent_id: "user", role: "human" }`, agent `x` ↔ `agent:x` |
 * | `task_id`                   | `task_id` (verbatim)                                          |
 * | attachment `{ type, … }`    | attachment `{ kind: type, … }`                                |
 * | any other top-level field   | `meta.cap.fields` (verbatim)                                  |
 */
import { z } from "zod";
import { AgentCardSchema, CapabilitySchema, type AgentCard, type Capability } from "./agent-card";
import { ClutchMessageSchema, PROTOCOL_VERSION, type Attachment, type ClutchMessage, type Participant } from "./envelope";
import { newId, RESERVED_PREFIX } from "./ids";
import { PAYLOAD_TYPE_PATTERN } from "./payloads";

// ---------------------------------------------------------------------------------------------
// Manifest (seed 000, "JSON schema for agent definitions")
// ---------------------------------------------------------------------------------------------

/** `patternProperties` key of `delegate_rules` in seed 000: the agent ids a rule may name. */
export const CAP_AGENT_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** One `delegate_rules` entry: the natural-language condition for delegating to that agent. */
export const CapDelegateRuleSchema = z.looseObject({
  when_to_delegate: z.string({ error: "when_to_delegate must be a string (the natural-language rule)" }),
});
export type CapDelegateRule = z.infer<typeof CapDelegateRuleSchema>;

/** One `mcp_bindings` entry: the MCP server an agent may use, with its scopes and tools. */
export const CapMcpBindingSchema = z.looseObject({
  server_id: z.string({ error: "server_id must be a string" }).min(1, "server_id must not be empty"),
  description: z.string().optional(),
  scopes: z.array(z.string(), { error: "scopes must be an array of strings" }),
  allowed_tools: z.array(z.string(), { error: "allowed_tools must be an array of strings" }),
});
export type CapMcpBinding = z.infer<typeof CapMcpBindingSchema>;

/**
 * The manifest object exactly as seed 000's JSON Schema describes it (required: `id`,
 * `system_prompt`, `allowed_agents`, `delegate_rules`, `mcp_bindings`; `overseer` is
 * `string | null` and optional). Two tightenings: `id` must not be empty, and every
 * `delegate_rules` key must match `^[A-Za-z0-9_-]+$` (the JSON Schema only constrains keys that
 * do match). Without the cross-field check of {@link CapManifestSchema}; this is the shape
 * `z.toJSONSchema` publishes.
 */
export const CapManifestObjectSchema = z.looseObject({
  id: z.string({ error: "id must be a string (the agent_id)" }).min(1, "id must not be empty"),
  system_prompt: z.string({ error: "system_prompt must be a string" }),
  allowed_agents: z.array(z.string().min(1, "an allowed agent id must not be empty"), {
    error: "allowed_agents must be an array of agent ids",
  }),
  delegate_rules: z.record(
    z.string().regex(CAP_AGENT_ID_PATTERN),
    CapDelegateRuleSchema,
    {
      error: (iss) =>
        iss.code === "invalid_key"
          ? `delegate_rules key ${JSON.stringify(iss.input)} is not an agent id matching ^[A-Za-z0-9_-]+$`
          : iss.code === "invalid_type"
            ? "delegate_rules must be an object keyed by agent id"
            : undefined,
    },
  ),
  overseer: z.string({ error: "overseer must be an agent id or null" }).nullable().optional(),
  mcp_bindings: z.array(CapMcpBindingSchema, { error: "mcp_bindings must be an array" }),
});

/** A URL, or `${NAME}` of an environment variable holding one. */
const UrlOrEnv = (field: string) =>
  z.string().regex(/^(https?:\/\/\S+|\$\{[A-Za-z_][A-Za-z0-9_]*\})$/, `${field} is a URL starting with http:// or https://, or \${NAME} of an environment variable holding one`);
const Headers = z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "a header name"), z.string()).default({});

/** What does an agent's work (CapManifestSchema `runtime`). */
export const RuntimeSchema = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({ kind: z.literal("model") }),
    z.strictObject({
      kind: z.literal("a2a"),
      /** The agent's AgentCard, e.g. `https://agent.example/.well-known/agent-card.json`, or `${NAME}` of a variable holding it. */
      card_url: UrlOrEnv("card_url"),
      /** Sent with every call, e.g. `{ "authorization": "Bearer ${TRAVEL_AGENT_TOKEN}" }`. */
      headers: Headers,
    }),
    z.strictObject({
      kind: z.literal("langgraph"),
      /** The module, relative to the workspace folder (`.ts`, `.js`, `.mjs`). */
      module: z.string().min(1),
      /** The name of its compiled graph export. */
      export: z.string().min(1).default("graph"),
    }),
    z.strictObject({
      kind: z.literal("langgraph-server"),
      /** The LangGraph server's URL, or `${NAME}` of a variable holding it. */
      url: UrlOrEnv("url"),
      /** The assistant (or graph id) to run. */
      assistant_id: z.string().min(1),
      headers: Headers,
    }),
    z.strictObject({
      kind: z.literal("ag-ui"),
      /** The AG-UI agent's endpoint, which takes a POSTed RunAgentInput and answers with its events (SSE), or `${NAME}` of a variable holding it. */
      url: UrlOrEnv("url"),
      /** Sent with every run, e.g. `{ "authorization": "Bearer ${PACKING_AGENT_TOKEN}" }`. */
      headers: Headers,
    }),
  ],
  { error: 'runtime.kind must be "model", "a2a", "langgraph", "langgraph-server" or "ag-ui"' },
);
export type Runtime = z.infer<typeof RuntimeSchema>;

/**
 * A CAP agent manifest (seed 000). Besides the JSON Schema, a `delegate_rules` entry must name an
 * agent listed in `allowed_agents` ("maps each allowed agent_id to a delegation condition"): a rule
 * for any other agent could never fire, so it is reported at `["delegate_rules", <agent id>]`.
 */
export const CapManifestSchema = CapManifestObjectSchema.extend({
  /**
   * Clutch extension, not in the seed's JSON Schema: the capabilities the router
   * matches (§1.5: id, version, tags, tools, trust_level, cost_hint). Absent: one
   * `skill:<role>` derived from the prompt.
   */
  capabilities: z.array(CapabilitySchema, { error: "capabilities must be an array of capabilities (id, version?, tags?, ...)" }).optional(),
  /** Clutch extension: the AgentCard's display name and description, instead of those read from `system_prompt` (a PromptPack's prompt name, docs/promptpacks.md). */
  display: z.strictObject({ name: z.string().min(1).max(100), desc: z.string().max(500).optional() }).optional(),
  /** Clutch extension (docs/schemas.md): the payload types of its results and of the inputs it takes; they go on the AgentCard. */
  produces: z.array(z.string().regex(PAYLOAD_TYPE_PATTERN, "a payload type is <domain>.<name>.v<version>, e.g. sales.forecast.v1"), { error: "produces must be an array of payload types" }).optional(),
  consumes: z.array(z.string().regex(PAYLOAD_TYPE_PATTERN, "a payload type is <domain>.<name>.v<version>, e.g. sales.forecast.v1"), { error: "consumes must be an array of payload types" }).optional(),
  /**
   * Clutch extension: the sampling settings of the agent's model calls (a PromptPack prompt's
   * `parameters`, docs/promptpacks.md): `temperature` 0–2, `max_tokens` (the most output tokens a
   * call may produce), `top_p` 0–1. Absent: the provider's defaults.
   */
  model_parameters: z
    .strictObject({
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().positive().max(1_000_000).optional(),
      top_p: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /**
   * Clutch extension: the agent's own limits (docs/lifecycle.md), over the workspace's
   * `lifecycle` defaults. `max_runtime_sec` goes on the AgentCard (§1.4 limits).
   */
  limits: z
    .strictObject({
      max_runtime_sec: z.number().positive().max(7 * 24 * 3600).optional(),
      max_model_turns: z.number().int().positive().max(1000).optional(),
      /**
       * The agent's own budgets (docs/observability.md "Budgets"), as the policy's: tokens and/or
       * cost per run, task or day, and what happens once one is reached.
       */
      budgets: z
        .array(
          z
            .strictObject({
              per: z.enum(["run", "task", "agent_day"]),
              max_tokens: z.number().int().positive().optional(),
              max_cost: z.number().positive().optional(),
              on_exceed: z.enum(["stop", "require_approval"]).default("stop"),
            })
            .refine((b) => b.max_tokens !== undefined || b.max_cost !== undefined, { message: "a budget needs max_tokens, max_cost or both", path: ["max_tokens"] }),
        )
        .max(10)
        .optional(),
    })
    .optional(),
  /**
   * Clutch extension (Cordum's compensation; docs/lifecycle.md "Compensation"): when a task of
   * this agent ends in error, cancel or timeout after a tool call `after` succeeded, Clutch calls
   * `undo` (both `<server_id>.<tool>`) for it, newest first. In `arguments`, a string
   * `$result.<path>` or `$arguments.<path>` takes the value at that dot path of the original
   * call's result or arguments; anything else is passed as it is.
   */
  compensations: z
    .array(
      z.strictObject({
        after: z.string().regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+$/, "after is <server_id>.<tool>"),
        undo: z.string().regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+$/, "undo is <server_id>.<tool>"),
        arguments: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .optional(),
  /**
   * Clutch extension (Clutch Protocol §7, docs/adapters.md): what does the agent's work. `model`
   * (the default) is Clutch's agent loop on a language model; `a2a` is an external A2A agent
   * reached at its AgentCard URL; `langgraph` a LangGraph JS graph exported by a module of the
   * workspace; `langgraph-server` a graph served by a LangGraph server; `ag-ui` an AG-UI agent
   * reached at its HTTP endpoint. Header values may name
   * environment variables as `${NAME}`, so credentials stay out of the file.
   */
  runtime: RuntimeSchema.default({ kind: "model" }),
}).superRefine((m, ctx) => {
  for (const [i, c] of (m.compensations ?? []).entries()) {
    const [server_id, tool] = [c.undo.slice(0, c.undo.indexOf(".")), c.undo.slice(c.undo.indexOf(".") + 1)];
    const binding = m.mcp_bindings.find((b) => b.server_id === server_id);
    if (!binding?.allowed_tools.includes(tool)) {
      ctx.addIssue({ code: "custom", path: ["compensations", i, "undo"], message: `${c.undo} is not in the agent's mcp_bindings (server ${server_id}, allowed_tools)` });
    }
  }
  const allowed = new Set(m.allowed_agents);
  for (const target of Object.keys(m.delegate_rules)) {
    if (!allowed.has(target)) {
      ctx.addIssue({
        code: "custom",
        path: ["delegate_rules", target],
        message: `delegate_rules names "${target}", which is not in allowed_agents`,
      });
    }
  }
});
export type CapManifest = z.infer<typeof CapManifestSchema>;

// ---------------------------------------------------------------------------------------------
// Attachments (seed 000, "Base Message": attachments)
// ---------------------------------------------------------------------------------------------

export const CAP_ATTACHMENT_TYPES = ["tool_call_result", "file", "python_object", "text_snippet"] as const;
export type CapAttachmentType = (typeof CAP_ATTACHMENT_TYPES)[number];

/** `tool_call_result`: `{ server_id, tool, result }`; `result` is any JSON value but must be present. */
export const CapToolCallResultSchema = z.looseObject({
  type: z.literal("tool_call_result"),
  server_id: z.string({ error: "server_id must be a string" }).min(1, "server_id must not be empty"),
  tool: z.string({ error: "tool must be a string" }).min(1, "tool must not be empty"),
  result: z.unknown(),
});
/** `file`: `{ path }` or `{ url }` (at least one). */
export const CapFileSchema = z
  .looseObject({
    type: z.literal("file"),
    path: z.string({ error: "path must be a string" }).optional(),
    url: z.string({ error: "url must be a string" }).optional(),
  })
  .refine((a) => a.path !== undefined || a.url !== undefined, {
    message: "a file attachment needs a path or a url",
    path: ["path"],
  });
/** `python_object`: `{ object }`, an arbitrary serialized Python object (any JSON value, present). */
export const CapPythonObjectSchema = z.looseObject({
  type: z.literal("python_object"),
  object: z.unknown(),
});
/** `text_snippet`: `{ text }`, an unstructured text block. */
export const CapTextSnippetSchema = z.looseObject({
  type: z.literal("text_snippet"),
  text: z.string({ error: "text must be a string" }),
});

const unknownKind = (what: string, known: readonly string[]) => (iss: { code: string; input?: unknown }) => {
  if (iss.code !== "invalid_union") return undefined;
  const input = iss.input as { type?: unknown } | undefined;
  const got = input && typeof input === "object" ? input.type : input;
  return `unknown ${what} type ${JSON.stringify(got)}; expected one of ${known.join(", ")}`;
};

/** One CAP attachment, discriminated by `type`; an unknown `type` is an error at `["type"]`. */
export const CapAttachmentSchema = z.discriminatedUnion(
  "type",
  [CapToolCallResultSchema, CapFileSchema, CapPythonObjectSchema, CapTextSnippetSchema],
  { error: unknownKind("CAP attachment", CAP_ATTACHMENT_TYPES) },
);
export type CapAttachment = z.infer<typeof CapAttachmentSchema>;

// ---------------------------------------------------------------------------------------------
// Messages (seed 000, "Message types")
// ---------------------------------------------------------------------------------------------

export const CAP_MESSAGE_TYPES = ["message", "delegation_notice", "oversight_inquiry", "error_response"] as const;
export type CapMessageType = (typeof CAP_MESSAGE_TYPES)[number];

/** The CAP id of the human participant ("sender_id/recipient_id: Agent instance IDs or \"user\""). */
export const CAP_USER_ID = "user";

const capId = (what: string) =>
  z.string({ error: `${what} must be a string` }).min(1, `${what} must not be empty`);

/**
 * Fields every CAP message carries. `timestamp` is named by seed 000 ("Every message carries
 * metadata (task_id, sender_id, recipient_id, type, timestamp)") but never shown; Clutch accepts an
 * ISO 8601 string or Unix epoch milliseconds and keeps the value verbatim.
 */
const capBase = {
  task_id: capId("task_id"),
  sender_id: capId("sender_id"),
  recipient_id: capId("recipient_id"),
  timestamp: z.union([z.string(), z.number()], { error: "timestamp must be an ISO 8601 string or epoch milliseconds" }).optional(),
  attachments: z.array(CapAttachmentSchema, { error: "attachments must be an array" }).optional(),
};

/** `message`: free communication between any participants; `content` is the text. */
export const CapMessageMessageSchema = z.looseObject({
  type: z.literal("message"),
  ...capBase,
  content: z.string({ error: "content must be a string" }),
});
/** `delegation_notice`: handoff of responsibility for a subtask. */
export const CapDelegationNoticeSchema = z.looseObject({
  type: z.literal("delegation_notice"),
  ...capBase,
  context_summary: z.string({ error: "context_summary must be a string" }),
});
/** `oversight_inquiry`: the overseer asks for clarification about a completed subtask. */
export const CapOversightInquirySchema = z.looseObject({
  type: z.literal("oversight_inquiry"),
  ...capBase,
  inquiry: z.string({ error: "inquiry must be a string" }),
});
/** `error_response`: a failure, timeout or permission error; `error_code` is an integer (e.g. 504). */
export const CapErrorResponseSchema = z.looseObject({
  type: z.literal("error_response"),
  ...capBase,
  error_code: z.number({ error: "error_code must be a number, e.g. 504" }).int("error_code must be an integer"),
  error_message: z.string({ error: "error_message must be a string" }),
});

/** Any CAP message, discriminated by `type`; an unknown `type` is an error at `["type"]`. */
export const CapMessageSchema = z.discriminatedUnion(
  "type",
  [CapMessageMessageSchema, CapDelegationNoticeSchema, CapOversightInquirySchema, CapErrorResponseSchema],
  { error: unknownKind("CAP message", CAP_MESSAGE_TYPES) },
);
export type CapMessage = z.infer<typeof CapMessageSchema>;

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

/**
 * A CAP agent id as a Clutch agent id (Appendix B `agent:` prefix): `pm-1` → `agent:pm-1`.
 * `"user"` stays `"user"`. The prefix is always added, so `clutchAgentIdToCap` inverts it exactly.
 */
export function capAgentIdToClutch(capId: string): string {
  return capId === CAP_USER_ID ? CAP_USER_ID : RESERVED_PREFIX.agent + capId;
}

/**
 * A Clutch participant as a CAP id: role `human` or id `user` → `"user"`; `agent:x` → `x`;
 * anything else verbatim. Inverse of {@link capAgentIdToClutch}.
 */
export function clutchAgentIdToCap(p: { agent_id: string; role?: string }): string {
  if (p.agent_id === CAP_USER_ID || p.role === "human") return CAP_USER_ID;
  return p.agent_id.startsWith(RESERVED_PREFIX.agent) ? p.agent_id.slice(RESERVED_PREFIX.agent.length) : p.agent_id;
}

function capParticipant(capId: string): Participant {
  if (capId === CAP_USER_ID) return { agent_id: CAP_USER_ID, role: "human" };
  return { agent_id: capAgentIdToClutch(capId), role: capId === "orchestrator" ? "orchestrator" : "worker" };
}

// ---------------------------------------------------------------------------------------------
// CAP → Clutch
// ---------------------------------------------------------------------------------------------

/**
 * What Clutch keeps in `meta.cap` of a message converted from CAP, so `clutchToCap` can rebuild the
 * CAP message exactly:
 * - `fields`: top-level CAP fields with no structural place in the envelope (`timestamp`, and any
 *   field the seed does not name), verbatim.
 * - `attachment_fields`: per attachment index, CAP attachment fields that would collide with
 *   Clutch's attachment keys (`kind`, or a non-string `ref`), verbatim.
 * Its presence also marks the message as CAP-born (then `clutchToCap` adds no `timestamp`).
 */
export const CapMetaSchema = z.looseObject({
  fields: z.record(z.string(), z.unknown()).optional(),
  attachment_fields: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type CapMeta = z.infer<typeof CapMetaSchema>;

/** Context a CAP message lacks and a ClutchMessage needs. */
export interface CapToClutchContext {
  /** Clutch `thread_id` (UI grouping). */
  thread_id: string;
  /** Clutch `run_id` (execution context). */
  run_id: string;
  /** Clutch `parent_task_id`, set on every converted message when given (CAP has no such field). */
  parent_task_id?: string | null;
  /** Fallback `ts` (ISO 8601) when the CAP message has no usable `timestamp`; else now. */
  ts?: string;
  /** Clutch message `id`; a new `msg_<ULID>` when absent. */
  id?: string;
}

/** Top-level CAP keys that map onto envelope/payload structure, per type. */
const STRUCTURAL: Record<CapMessageType, readonly string[]> = {
  message: ["content"],
  delegation_notice: ["context_summary"],
  oversight_inquiry: ["inquiry"],
  error_response: ["error_code", "error_message"],
};
const BASE_STRUCTURAL = ["type", "task_id", "sender_id", "recipient_id", "attachments"];

function capTimestampToIso(t: unknown): string | undefined {
  if (typeof t !== "string" && typeof t !== "number") return undefined;
  if (typeof t === "string" && z.iso.datetime({ offset: true }).safeParse(t).success) return t;
  const ms = typeof t === "number" ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/**
 * Converts one CAP message (seed 000) into a ClutchMessage (seed 001 §1.1, §2).
 *
 * Input: any value; it is parsed with {@link CapMessageSchema}. Output: a ClutchMessage that passes
 * `ClutchMessageSchema` with `v: "clutch/0.1"`, `id` = `ctx.id` or a new `msg_` id, `ts` = the CAP
 * `timestamp` when it is a date, else `ctx.ts`, else now; `thread_id`/`run_id` from `ctx`;
 * `task_id` = CAP `task_id` verbatim; `parent_task_id` = `ctx.parent_task_id` when given;
 * `from` = sender, `to` = `[recipient]` (`"user"` → `{ agent_id: "user", role: "human" }`,
 * agent `x` → `{ agent_id: "agent:x", role: "worker" | "orchestrator" }`); attachments
 * `{ type, …rest }` → `{ kind: type, …rest }` (present exactly when CAP had `attachments`);
 * `meta = { framework: "cap", cap: CapMeta }`.
 *
 * Types: `message` → `chat.message { text: content }`; `delegation_notice` → `task.request
 * { context_summary }`; `oversight_inquiry` → `chat.message { text: inquiry, inquiry: true,
 * expects_reply: true }`; `error_response` → `task.error { code: "CAP_<error_code>", message:
 * error_message, details: { cap_error_code: error_code } }`.
 *
 * Throws a `ZodError` when the input is not a CAP message, or when the result is not a valid
 * ClutchMessage (e.g. an empty `content`, which `chat.message` forbids; an id over 200 characters).
 */
export function capToClutch(input: unknown, ctx: CapToClutchContext): ClutchMessage {
  const cap = CapMessageSchema.parse(input);
  const raw = cap as Record<string, unknown>;

  const structural = new Set([...BASE_STRUCTURAL, ...STRUCTURAL[cap.type]]);
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!structural.has(k)) fields[k] = v;

  const attachmentFields: Record<string, Record<string, unknown>> = {};
  const attachments: Attachment[] | undefined = cap.attachments?.map((a, i) => {
    const { type, ...rest } = a as Record<string, unknown> & { type: string };
    const displaced: Record<string, unknown> = {};
    if ("kind" in rest) {
      displaced.kind = rest.kind;
      delete rest.kind;
    }
    if ("ref" in rest && typeof rest.ref !== "string") {
      displaced.ref = rest.ref;
      delete rest.ref;
    }
    if (Object.keys(displaced).length > 0) attachmentFields[String(i)] = displaced;
    return { kind: type, ...rest };
  });

  let type: ClutchMessage["type"];
  let payload: Record<string, unknown>;
  switch (cap.type) {
    case "message":
      type = "chat.message";
      payload = { text: cap.content };
      break;
    case "oversight_inquiry":
      type = "chat.message";
      payload = { text: cap.inquiry, inquiry: true, expects_reply: true };
      break;
    case "delegation_notice":
      type = "task.request";
      payload = { context_summary: cap.context_summary };
      break;
    case "error_response":
      type = "task.error";
      payload = {
        code: `CAP_${cap.error_code}`,
        message: cap.error_message,
        details: { cap_error_code: cap.error_code },
      };
      break;
  }

  const meta: CapMeta = {};
  if (Object.keys(fields).length > 0) meta.fields = fields;
  if (Object.keys(attachmentFields).length > 0) meta.attachment_fields = attachmentFields;

  const msg: ClutchMessage = {
    v: PROTOCOL_VERSION,
    id: ctx.id ?? newId("message"),
    ts: capTimestampToIso(raw.timestamp) ?? ctx.ts ?? new Date().toISOString(),
    thread_id: ctx.thread_id,
    run_id: ctx.run_id,
    task_id: cap.task_id,
    ...(ctx.parent_task_id !== undefined ? { parent_task_id: ctx.parent_task_id } : {}),
    from: capParticipant(cap.sender_id),
    to: [capParticipant(cap.recipient_id)],
    type,
    payload,
    ...(attachments ? { attachments } : {}),
    meta: { framework: "cap", cap: meta },
  };
  return ClutchMessageSchema.parse(msg);
}

// ---------------------------------------------------------------------------------------------
// Clutch → CAP
// ---------------------------------------------------------------------------------------------

/** Thrown when a ClutchMessage has no CAP equivalent. `reason` is machine-readable. */
export class CapConversionError extends Error {
  constructor(
    readonly reason: "no_cap_type" | "recipients" | "attachment_kind" | "bad_meta",
    message: string,
  ) {
    super(message);
    this.name = "CapConversionError";
  }
}

const CAP_ERROR_CODE = /^CAP_(-?\d+)$/;

/**
 * Converts a ClutchMessage back into a CAP message; the inverse of {@link capToClutch}.
 *
 * Input: any value; it is parsed with `ClutchMessageSchema`. Type mapping: `chat.message` →
 * `oversight_inquiry` when `payload.inquiry === true`, else `message`; `task.request` →
 * `delegation_notice` (`context_summary` ← `payload.context_summary`, else `instructions`, else
 * `title`, else `""`); `task.error` → `error_response` (`error_code` ← `details.cap_error_code`,
 * else the number in a `CAP_<n>` code, else 500 with the string code kept in `clutch_code`;
 * `error_message` ← `payload.message`). Ids: see {@link clutchAgentIdToCap}.
 *
 * For a message that came from `capToClutch` (it has `meta.cap`), the result deep-equals the
 * original CAP message, unknown fields included. For a Clutch-born message, `timestamp` is set from
 * `ts`, a Clutch `artifact_ref` attachment becomes `{ type: "file", url: ref }`, and Clutch-only
 * fields (thread, run, payload extras such as `mentions`) are dropped.
 *
 * Throws `CapConversionError` for other types (`no_cap_type`), `to` without exactly one
 * recipient (`recipients`), an attachment kind CAP cannot carry (`attachment_kind`) or a malformed
 * `meta.cap` (`bad_meta`); a `ZodError` when the input is not a valid ClutchMessage.
 */
export function clutchToCap(input: unknown): CapMessage {
  const msg = ClutchMessageSchema.parse(input);
  const metaParse = msg.meta?.cap === undefined ? undefined : CapMetaSchema.safeParse(msg.meta.cap);
  if (metaParse && !metaParse.success) {
    throw new CapConversionError("bad_meta", `meta.cap is malformed: ${metaParse.error.issues.map((i) => i.message).join("; ")}`);
  }
  const capMeta = metaParse?.data;

  if (msg.to.length !== 1) {
    throw new CapConversionError(
      "recipients",
      `a CAP message has exactly one recipient_id; this ${msg.type} has ${msg.to.length} recipients in to[]`,
    );
  }

  const p = msg.payload;
  let body: Record<string, unknown>;
  switch (msg.type) {
    case "chat.message":
      body =
        p.inquiry === true
          ? { type: "oversight_inquiry", inquiry: p.text }
          : { type: "message", content: p.text };
      break;
    case "task.request": {
      const summary = [p.context_summary, p.instructions, p.title].find((s) => typeof s === "string");
      body = { type: "delegation_notice", context_summary: summary ?? "" };
      break;
    }
    case "task.error": {
      const code = String(p.code);
      const details = (p.details ?? {}) as Record<string, unknown>;
      const fromDetails = details.cap_error_code;
      const fromCode = CAP_ERROR_CODE.exec(code);
      const errorCode =
        typeof fromDetails === "number" && Number.isInteger(fromDetails)
          ? fromDetails
          : fromCode
            ? Number(fromCode[1])
            : 500;
      body = {
        type: "error_response",
        error_code: errorCode,
        error_message: p.message,
        ...(fromCode ? {} : { clutch_code: code }),
      };
      break;
    }
    default:
      throw new CapConversionError(
        "no_cap_type",
        `${msg.type} has no CAP equivalent; CAP carries chat.message, task.request and task.error`,
      );
  }

  const attachments = msg.attachments?.map((a, i) => {
    const { kind, ...rest } = a;
    const displaced = capMeta?.attachment_fields?.[String(i)];
    if (kind === "artifact_ref" && !capMeta) {
      const { ref, ...others } = rest;
      return { type: "file", url: ref, ...others };
    }
    if (!(CAP_ATTACHMENT_TYPES as readonly string[]).includes(kind)) {
      throw new CapConversionError(
        "attachment_kind",
        `attachment ${i} has kind "${kind}", which CAP cannot carry; CAP attachment types are ${CAP_ATTACHMENT_TYPES.join(", ")}`,
      );
    }
    return { ...rest, ...displaced, type: kind };
  });

  const fields = capMeta ? (capMeta.fields ?? {}) : { timestamp: msg.ts };
  const cap = {
    ...fields,
    type: body.type,
    task_id: msg.task_id,
    sender_id: clutchAgentIdToCap(msg.from),
    recipient_id: clutchAgentIdToCap(msg.to[0]),
    ...body,
    ...(attachments ? { attachments } : {}),
  };
  return CapMessageSchema.parse(cap);
}

// ---------------------------------------------------------------------------------------------
// Manifest → AgentCard
// ---------------------------------------------------------------------------------------------

/** `limits.max_concurrency` of a card made from a manifest: one CAP agent instance, one task. */
export const DEFAULT_MAX_CONCURRENCY = 1;

const YOU_ARE = /^\s*You are\s+(?:the\s+|an?\s+)?([A-Z][A-Za-z0-9_-]*(?:\s+[A-Z][A-Za-z0-9_-]*)*)/;
const DESC_MAX = 300;

function splitCamel(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
}

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut) + "…";
}

/**
 * Display name, description and role derived from a CAP `system_prompt` and `id`.
 * "You are the ProjectManager agent. Break down…" → name "Project Manager", desc "Break down…",
 * role "project-manager"; "You are QAAgent, responsible for…" → "QA Agent", "Responsible for…", "qa".
 * Without a leading "You are <Name>": name = id, desc = the prompt, role = id without an instance
 * suffix (`pm-1` → `pm`).
 */
export function describeCapAgent(id: string, systemPrompt: string): { name: string; desc?: string; role: string } {
  const m = YOU_ARE.exec(systemPrompt);
  const idRole = (id.replace(/[-_]\d+$/, "") || id).toLowerCase().replace(/[^a-z0-9_-]+/g, "-");
  if (!m) {
    const desc = systemPrompt.trim();
    return { name: id, ...(desc ? { desc: clip(desc, DESC_MAX) } : {}), role: idRole };
  }
  const name = splitCamel(m[1]);
  const words = name.split(/\s+/);
  if (words.length > 1 && words[words.length - 1] === "Agent") words.pop();
  const role = words.join("-").toLowerCase().replace(/[^a-z0-9_-]+/g, "-") || idRole;
  const rest = systemPrompt
    .slice(m[0].length)
    .replace(/^\s*(?:agent\b)?\s*[,.;:—–-]?\s*/i, "")
    .trim();
  const descText = rest ? rest[0].toUpperCase() + rest.slice(1) : systemPrompt.trim();
  return { name, ...(descText ? { desc: clip(descText, DESC_MAX) } : {}), role };
}

/** An MCP server id as a Clutch `mcp:` reference (Appendix B); already-prefixed ids are kept. */
function mcpRef(serverId: string): string {
  return serverId.startsWith(RESERVED_PREFIX.mcp) ? serverId : RESERVED_PREFIX.mcp + serverId;
}

/**
 * Derives the AgentCard (seed 001 §1.4, §1.5) of a CAP agent manifest (seed 000).
 *
 * Input: any value, parsed with {@link CapManifestSchema}; `opts.max_concurrency` (default
 * {@link DEFAULT_MAX_CONCURRENCY}). Output (validated with `AgentCardSchema`):
 * - `agent_id`: `agent:<id>` ({@link capAgentIdToClutch});
 * - `display`: the manifest's own `display` (Clutch extension), else name and desc from
 *   `system_prompt` ({@link describeCapAgent});
 * - `capabilities`: the manifest's own `capabilities` (Clutch extension; each gets the bound
 *   MCP servers as `tools` and `trust_level: "sandbox"` unless it says otherwise), else
 *   `{ id: "skill:<role>", tools: ["mcp:<server_id>"…], trust_level: "sandbox" }`; and, when there are MCP bindings, `{ id: "tool:mcp", servers: ["mcp:<server_id>"…],
 *   mcp_bindings: [{ server: "mcp:<server_id>", scopes, allowed_tools, description? }] }` so the
 *   router's tool-allowlist filter (§4.2) can see what each server may be used for;
 * - `produces`, `consumes`: the manifest's payload types (Clutch extension), when it names any;
 * - `limits: { max_concurrency, max_runtime_sec? }` (the manifest's own `limits.max_runtime_sec`),
 *   `security: { sandbox: true }` (§6 "sandbox by default").
 * Delegation fields (`allowed_agents`, `delegate_rules`, `overseer`) stay in the manifest; the
 * card does not carry them.
 *
 * Throws a `ZodError` when the input is not a valid manifest or `max_concurrency` is not a
 * positive integer.
 */
export function manifestToAgentCard(input: unknown, opts: { max_concurrency?: number } = {}): AgentCard {
  const manifest = CapManifestSchema.parse(input);
  const described = describeCapAgent(manifest.id, manifest.system_prompt);
  const { role } = described;
  const { name, desc } = manifest.display ? { name: manifest.display.name, desc: manifest.display.desc ?? described.desc } : described;
  const servers = [...new Set(manifest.mcp_bindings.map((b) => mcpRef(b.server_id)))];

  const declared = manifest.capabilities?.map((c) => ({ ...(servers.length > 0 ? { tools: servers } : {}), trust_level: "sandbox" as const, ...c }));
  const capabilities: Capability[] = declared ?? [
    { id: RESERVED_PREFIX.skill + role, ...(servers.length > 0 ? { tools: servers } : {}), trust_level: "sandbox" },
  ];
  if (servers.length > 0) {
    capabilities.push({
      id: RESERVED_PREFIX.tool + "mcp",
      servers,
      mcp_bindings: manifest.mcp_bindings.map((b) => ({
        server: mcpRef(b.server_id),
        ...(b.description !== undefined ? { description: b.description } : {}),
        scopes: b.scopes,
        allowed_tools: b.allowed_tools,
      })),
    });
  }

  // An agent elsewhere is reached at its runtime's URL (docs/adapters.md); `${NAME}`s stay as written.
  const runtime = manifest.runtime;
  const endpoints =
    runtime.kind === "a2a"
      ? { a2a: { url: runtime.card_url } }
      : runtime.kind === "langgraph-server"
        ? { langgraph: { url: runtime.url } }
        : runtime.kind === "ag-ui"
          ? { "ag-ui": { url: runtime.url } }
          : undefined;

  return AgentCardSchema.parse({
    v: PROTOCOL_VERSION,
    agent_id: capAgentIdToClutch(manifest.id),
    display: { name, ...(desc !== undefined ? { desc } : {}) },
    ...(endpoints ? { endpoints } : {}),
    capabilities,
    ...(manifest.produces?.length ? { produces: manifest.produces } : {}),
    ...(manifest.consumes?.length ? { consumes: manifest.consumes } : {}),
    limits: {
      max_concurrency: opts.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
      ...(manifest.limits?.max_runtime_sec ? { max_runtime_sec: manifest.limits.max_runtime_sec } : {}),
    },
    security: { sandbox: true },
  });
}
