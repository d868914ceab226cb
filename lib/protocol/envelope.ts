/**
 * The ClutchMessage envelope (Clutch Protocol §1.1, §1.2).
 *
 * Every fact in Clutch is one ClutchMessage. `ClutchMessageSchema` validates the envelope,
 * then the payload against its type's schema (§2, lib/protocol/payloads.ts) and, when
 * `payload_type` is a built-in (§3.3), against that contract too. The envelope is strict:
 * an unknown top-level field is an error (put framework extras in `meta`), so nothing is
 * silently dropped. Before the payload check, the whole message must be storable
 * (lib/protocol/json-limits.ts: no NUL, valid Unicode, nesting and size limits). A stored event
 * is the message plus its global cursor `seq`.
 */
import { z } from "zod";
import { describePath, findUnstorable, MAX_MESSAGE_CHARS } from "./json-limits";
import { BUILTIN_PAYLOAD_TYPES, MESSAGE_TYPES, PAYLOAD_BY_TYPE, type MessageType } from "./payloads";

export const PROTOCOL_VERSION = "clutch/0.1" as const;

const id = (what: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${what} is required` : `${what} must be a string`) })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} is limited to 200 characters`);

/** A sender or recipient (`from`, `to[]`). `role` e.g. worker, orchestrator, human. */
export const ParticipantSchema = z.looseObject({
  agent_id: id("agent_id"),
  role: z.string().optional(),
  display_name: z.string().optional(),
});
export type Participant = z.infer<typeof ParticipantSchema>;

/** Distributed tracing ids (W3C-style trace and span). */
export const TraceSchema = z.looseObject({
  trace_id: z.string().min(1),
  span_id: z.string().min(1).optional(),
  parent_span_id: z.string().min(1).optional(),
});

/** Auth and policy (§1.1, §6). */
export const SecuritySchema = z.looseObject({
  auth: z
    .looseObject({ scheme: z.string(), kid: z.string().optional(), sig: z.string().optional() })
    .optional(),
  policy: z
    .looseObject({
      sandbox: z.boolean().optional(),
      tool_allowlist: z.array(z.string()).optional(),
      /** The network access the task needs (§4.2 hard filter): none < egress-restricted < egress. */
      network: z.enum(["none", "egress-restricted", "egress"]).optional(),
    })
    .optional(),
});

/** An attachment; `kind` says which (`artifact_ref` with `ref: "artifact:<id>"`, or a CAP kind). */
export const AttachmentSchema = z.looseObject({
  kind: z.string().min(1, "an attachment needs a kind, e.g. artifact_ref"),
  ref: z.string().optional(),
});
export type Attachment = z.infer<typeof AttachmentSchema>;

/** Earliest and latest `ts` accepted, in UTC (docs/limits.md). */
export const TS_RANGE = { min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) };

const isoDateTime = z.iso
  .datetime({ offset: true, error: "ts must be an ISO 8601 date-time, e.g. 2026-02-01T13:20:11.123Z" })
  .refine((ts) => {
    const t = Date.parse(ts);
    return Number.isNaN(t) || (t >= TS_RANGE.min && t <= TS_RANGE.max); // NaN: the format error says it
  }, "ts must fall between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z");

/** The envelope fields, before the per-type payload check. */
export const EnvelopeSchema = z.strictObject({
  v: z.literal(PROTOCOL_VERSION, { error: `v must be "${PROTOCOL_VERSION}"` }),
  id: id("id"),
  ts: isoDateTime,
  thread_id: id("thread_id"),
  run_id: id("run_id"),
  task_id: id("task_id"),
  parent_task_id: id("parent_task_id").nullable().optional(),
  trace: TraceSchema.optional(),
  from: z.looseObject(ParticipantSchema.shape, { error: "from must be the sender: { agent_id, role? }" }),
  to: z.array(ParticipantSchema, { error: "to is required: an array of { agent_id }, empty for a broadcast" }),
  type: z.enum(MESSAGE_TYPES as [MessageType, ...MessageType[]], {
    error: (iss) => `unknown type ${JSON.stringify(iss.input)}; expected one of ${MESSAGE_TYPES.join(", ")}`,
  }),
  domain: z.string().min(1).optional(),
  payload_type: z.string().min(1).optional(),
  schema_ref: z.string().min(1).optional(),
  payload: z.record(z.string(), z.unknown(), { error: "payload must be a JSON object" }),
  requires: z.array(z.string().min(1)).optional(),
  prefers: z.array(z.string().min(1)).optional(),
  security: SecuritySchema.optional(),
  attachments: z.array(AttachmentSchema).optional(),
  idempotency_key: id("idempotency_key").optional(),
  attempt: z.number().int().min(1, "attempt is 1-based").optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A validated ClutchMessage. Errors are zod issues whose `path` points into the message
 * (`["payload", "text"]`), so a caller can show exactly what to fix.
 */
export const ClutchMessageSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    // On the raw value: parsing copies objects, which would drop a `__proto__` key unseen.
    const unstorable = findUnstorable(value, { maxChars: MAX_MESSAGE_CHARS });
    if (unstorable) ctx.addIssue({ code: "custom", path: unstorable.path, message: `${describePath(unstorable.path, "the message")} ${unstorable.message}` });
  })
  .pipe(EnvelopeSchema.superRefine(checkPayload));

/** The payload against its type's schema (§2), then against a built-in payload type (§3.3). */
function checkPayload(msg: z.infer<typeof EnvelopeSchema>, ctx: z.core.$RefinementCtx<z.infer<typeof EnvelopeSchema>>) {
  const payloadSchema = PAYLOAD_BY_TYPE[msg.type];
  const byType = payloadSchema.safeParse(msg.payload);
  if (!byType.success) {
    for (const issue of byType.error.issues) {
      ctx.addIssue({ ...issue, path: ["payload", ...issue.path], message: `${msg.type}: ${issue.message}` } as never);
    }
    return;
  }
  const builtin = msg.payload_type && BUILTIN_PAYLOAD_TYPES[msg.payload_type as keyof typeof BUILTIN_PAYLOAD_TYPES];
  if (builtin) {
    const contract = builtin.safeParse(msg.payload);
    if (!contract.success) {
      for (const issue of contract.error.issues) {
        ctx.addIssue({
          ...issue,
          path: ["payload", ...issue.path],
          message: `${msg.payload_type}: ${issue.message}`,
        } as never);
      }
    }
  }
}

export type ClutchMessage = z.infer<typeof EnvelopeSchema>;

/** A ClutchMessage as stored: with its global, gap-free cursor `seq` (1-based). */
export type StoredEvent = ClutchMessage & { seq: number };

/** A ClutchMessage or an array of them: the body of `POST /api/events`. */
export const ClutchMessageInputSchema = z.union([ClutchMessageSchema, z.array(ClutchMessageSchema).min(1).max(5000)]);
