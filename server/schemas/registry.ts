/**
 * The schema registry (Clutch Protocol §3; docs/schemas.md): every payload type has a versioned
 * JSON Schema (draft 2020-12), named `schema://<name>@<version>`.
 *
 * - Built-ins, generated from Clutch's zod schemas (zod's JSON Schema output, as input: what a
 *   sender may send), so the two cannot disagree:
 *   - the built-in payload types (§3.3): `research.summary.v1` is `schema://clutch/research/summary@1`
 *     (the seed's own example of §3.2);
 *   - the payload of every message type (§2): `task.request` is `schema://clutch/message/task.request@1`.
 * - Added ones: people and agents add payload types (`POST /api/schemas`), stored one row per
 *   version in the `schemas` table. A version never changes (a trigger refuses it); a new shape is
 *   a new version, and versions live side by side (`sales.forecast.v1` and `.v2`).
 *
 * Every node keeps the added schemas in memory and reads the table again when it meets a payload
 * type it does not know (at most once a second), so a schema added on one node is enforced on
 * every node from its first use. Schemas are compiled once with Ajv (2020-12, with the standard
 * formats) and cached; a violation names the failing field by JSON pointer (RFC 6901).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { z } from "zod";
import { isEvent, type ClutchMessage } from "@/lib/protocol";
import { BUILTIN_PAYLOAD_TYPES, MESSAGE_TYPES, PAYLOAD_BY_TYPE, PAYLOAD_TYPE_PATTERN, type MessageType } from "@/lib/protocol/payloads";
import type { Db } from "../db/client";
import { ClutchError } from "../errors";

/** One schema of the registry. */
export interface RegisteredSchema {
  /** `schema://<name>@<version>` */
  ref: string;
  /** e.g. `clutch/research/summary` */
  name: string;
  /** Whole number, from 1. */
  version: number;
  /** The payload type it defines (§3.3), e.g. `research.summary.v1`. */
  payload_type?: string;
  /** The message type whose payload it defines (§2), e.g. `task.request`. */
  message_type?: MessageType;
  /** One line on what it is for. */
  description: string;
  /** JSON Schema 2020-12. */
  json_schema: Record<string, unknown>;
  /** `builtin`: Clutch's own zod schemas; `added`: a person or an agent added it. */
  source: "builtin" | "added";
  /** Who added it (`user:…`, `agent:…`); absent for built-ins. */
  created_by?: string;
  /** When it was added (ISO 8601); absent for built-ins. */
  created_at?: string;
}

/** A validation failure: where (a JSON pointer into the value checked) and why. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}


/** What `POST /api/schemas` takes. */
export const NewSchemaInput = z.strictObject({
  payload_type: z.string().regex(PAYLOAD_TYPE_PATTERN, "a payload type is <domain>.<name>.v<version> in lowercase, e.g. sales.forecast.v1"),
  description: z.string().trim().max(500, "a description is limited to 500 characters").default(""),
  json_schema: z.record(z.string(), z.unknown(), { error: "json_schema must be a JSON Schema object" }),
});
export type NewSchema = z.input<typeof NewSchemaInput>;

const REF = /^schema:\/\/([a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)*)@([1-9][0-9]*)$/;

/** Reads of the table again for an unknown payload type are at least this far apart (ms). */
const REFRESH_MS = 1000;

/** `schema://<name>@<version>` → its name and version; null when it is not one. */
export function parseSchemaRef(ref: string): { name: string; version: number } | null {
  const m = REF.exec(ref);
  return m ? { name: m[1]!, version: Number(m[2]) } : null;
}

/** The ref of payload type `<domain>.<name>.v<N>` (§3.2): `schema://clutch/<domain>/<name>@<N>`; null for another shape. */
export function payloadTypeRef(payload_type: string): string | null {
  const m = PAYLOAD_TYPE_PATTERN.exec(payload_type);
  return m ? `schema://clutch/${m[1]}/${m[2]!.replaceAll(".", "/")}@${m[3]}` : null;
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const escapePointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** A JSON pointer's segment as a path element: an array index as a number, like zod's paths. */
const segmentOf = (s: string): string | number => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s.replaceAll("~1", "/").replaceAll("~0", "~"));

/** The pointer of Ajv's first error: for a missing field, the field itself. */
function violationOf(e: ErrorObject): SchemaViolation {
  const missing = e.keyword === "required" ? `/${escapePointer(String((e.params as { missingProperty: string }).missingProperty))}` : "";
  const extra = e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : "";
  return { pointer: `${e.instancePath}${missing}`, message: `${e.message ?? "does not match its schema"}${extra}` };
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
}

/** What each built-in payload type holds (Clutch Protocol §3.3's required fields, in words). */
const BUILTIN_DESCRIPTIONS: Record<keyof typeof BUILTIN_PAYLOAD_TYPES, string> = {
  "research.summary.v1": "Research findings and the citations behind them.",
  "research.sources.v1": "Sources found for a question, with their relevance scores.",
  "code.output.v1": "Code written: its files, their language, and whether the tests passed.",
  "code.review.v1": "A code review: its findings, their severity, and a patch when there is one.",
  "review.feedback.v1": "An overseer's verdict on work under review: the decision, comments and blocking issues.",
};

function builtins(): RegisteredSchema[] {
  const out: RegisteredSchema[] = [];
  for (const [payload_type, schema] of Object.entries(BUILTIN_PAYLOAD_TYPES)) {
    const ref = payloadTypeRef(payload_type)!;
    const { name, version } = parseSchemaRef(ref)!;
    const description = BUILTIN_DESCRIPTIONS[payload_type as keyof typeof BUILTIN_PAYLOAD_TYPES];
    out.push({ ref, name, version, payload_type, description, json_schema: jsonSchemaOf(schema), source: "builtin" });
  }
  for (const message_type of MESSAGE_TYPES) {
    const name = `clutch/message/${message_type}`;
    out.push({
      ref: `schema://${name}@1`,
      name,
      version: 1,
      message_type,
      description: `The payload of a ${message_type} message (Clutch Protocol §2).`,
      json_schema: jsonSchemaOf(PAYLOAD_BY_TYPE[message_type]),
      source: "builtin",
    });
  }
  return out;
}

const byRef = (a: RegisteredSchema, b: RegisteredSchema) => a.name.localeCompare(b.name) || a.version - b.version;

/** A new Ajv for JSON Schema 2020-12 with the standard formats (date-time, email, uri, …). */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

/** The registry: built-ins plus the schemas added to `db` (none without a database). */
export class SchemaRegistry {
  private readonly builtin = builtins();
  private added = new Map<string, RegisteredSchema>();
  private all: RegisteredSchema[] = [...this.builtin].sort(byRef);
  private readonly byRef = new Map(this.builtin.map((s) => [s.ref, s]));
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly ajv = newAjv();
  private refreshedAt = -Infinity;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly db: Db | null = null) {}

  /** Read the added schemas again (every one: the table holds few rows). */
  async refresh(): Promise<void> {
    if (!this.db) return;
    this.refreshing ??= (async () => {
      try {
        const rows = await this.db!.schemaVersion.findMany();
        this.added = new Map(rows.map((r) => [r.ref, { ref: r.ref, name: r.name, version: r.version, payload_type: r.payload_type, description: r.description, json_schema: r.json_schema as Record<string, unknown>, source: "added" as const, created_by: r.created_by, created_at: r.created_at.toISOString() }]));
        for (const s of this.added.values()) this.byRef.set(s.ref, s);
        this.all = [...this.builtin, ...this.added.values()].sort(byRef);
        this.refreshedAt = Date.now();
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** Every schema, by name then version. */
  list(): RegisteredSchema[] {
    return this.all;
  }

  /** The schema `ref` names, or undefined. */
  get(ref: string): RegisteredSchema | undefined {
    return this.byRef.get(ref);
  }

  /** Every version of schema `name`, oldest first. */
  versionsOf(name: string): RegisteredSchema[] {
    return this.all.filter((s) => s.name === name);
  }

  /** The schema of payload type `payload_type` (§3.2) as known now, or undefined. */
  forPayloadType(payload_type: string): RegisteredSchema | undefined {
    const ref = payloadTypeRef(payload_type);
    return ref ? this.byRef.get(ref) : undefined;
  }

  /** The schema of `payload_type`, reading the table again when it is not known yet (at most once a second). */
  async lookup(payload_type: string): Promise<RegisteredSchema | undefined> {
    const known = this.forPayloadType(payload_type);
    if (known || !this.db || Date.now() - this.refreshedAt < REFRESH_MS) return known;
    await this.refresh();
    return this.forPayloadType(payload_type);
  }

  /** The schema of message type `type`'s payload. */
  forMessageType(type: MessageType): RegisteredSchema {
    return this.byRef.get(`schema://clutch/message/${type}@1`)!;
  }

  /** Check `value` against schema `ref` (compiled on first use). Null when it conforms. Throws for an unknown ref. */
  validate(ref: string, value: unknown): SchemaViolation | null {
    let check = this.compiled.get(ref);
    if (!check) {
      const schema = this.byRef.get(ref);
      if (!schema) throw new Error(`unknown schema ${ref}`);
      this.compiled.set(ref, (check = this.ajv.compile({ ...schema.json_schema, $id: ref })));
    }
    return check(value) ? null : violationOf(check.errors![0]!);
  }

  /**
   * Check `payload` against the schema of `payload_type` when the registry has one. Null when it
   * conforms or the type is not registered (the registry is open: an unregistered type is the
   * sender's own contract); else the violation with the schema's ref.
   */
  async check(payload_type: string, payload: unknown): Promise<(SchemaViolation & { ref: string }) | null> {
    const schema = await this.lookup(payload_type);
    if (!schema) return null;
    const v = this.validate(schema.ref, payload);
    return v && { ...v, ref: schema.ref };
  }

  /**
   * Ingest validation: every message that names a registered `payload_type` must match its
   * schema, and a task.request's `input` must match its `input_type`'s. Throws ClutchError
   * invalid_event (400) naming the message, the field by JSON pointer and the schema; nothing of
   * the batch is stored. Built-in payload types were checked with the envelope (lib/protocol/envelope.ts).
   */
  async checkMessages(messages: readonly ClutchMessage[]): Promise<void> {
    const issues: { path: (string | number)[]; pointer: string; message: string; schema: string }[] = [];
    for (const [index, msg] of messages.entries()) {
      const at = messages.length > 1 ? [index] : [];
      const checks: [string, unknown, string[]][] = [];
      if (msg.payload_type && !(msg.payload_type in BUILTIN_PAYLOAD_TYPES)) checks.push([msg.payload_type, msg.payload, ["payload"]]);
      if (isEvent(msg, "task.request") && typeof msg.payload.input_type === "string") checks.push([msg.payload.input_type, msg.payload.input, ["payload", "input"]]);
      for (const [type, value, base] of checks) {
        const v = await this.check(type, value);
        if (!v) continue;
        const path = [...at, ...base, ...v.pointer.split("/").slice(1).map(segmentOf)];
        const pointer = `/${base.join("/")}${v.pointer}`;
        issues.push({ path, pointer, message: `${type} (${v.ref}): ${pointer} ${v.message}`, schema: v.ref });
      }
    }
    if (!issues.length) return;
    const first = issues[0]!;
    const which = messages.length > 1 ? `message ${String(first.path[0])}: ` : "";
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    throw new ClutchError("invalid_event", `${which}${first.message}${more}; nothing was stored`, 400, issues as never);
  }

  /**
   * Add a payload type's schema (`POST /api/schemas`) on behalf of `by` (a principal id).
   * Throws ClutchError invalid_body (not a NewSchema), invalid_schema (400: not a valid JSON
   * Schema 2020-12 for an object, with the pointer into it; or a reserved domain) and
   * schema_exists (409: that version exists; a new shape is a new version).
   */
  async add(input: NewSchema, by: string): Promise<RegisteredSchema> {
    if (!this.db) throw new Error("SchemaRegistry.add needs a database");
    const parsed = NewSchemaInput.safeParse(input);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw new ClutchError("invalid_body", `${first.path.join(".") || "body"}: ${first.message}`, 400, parsed.error.issues);
    }
    const { payload_type, description, json_schema } = parsed.data;
    const ref = payloadTypeRef(payload_type)!;
    const { name, version } = parseSchemaRef(ref)!;
    if (name.startsWith("clutch/message/")) throw new ClutchError("invalid_schema", `the domain "message" is Clutch's own (the payloads of its message types); choose another domain than ${payload_type}`);
    this.assertValidSchema(json_schema);
    await this.refresh();
    const existing = this.byRef.get(ref);
    if (existing) throw new ClutchError("schema_exists", `${payload_type} exists (${ref}${existing.source === "builtin" ? ", built in" : ""}); a version never changes: add ${nextVersion(payload_type, this.versionsOf(name))} instead`);
    try {
      await this.db.schemaVersion.create({ data: { ref, name, version, payload_type, description, json_schema: json_schema as object, created_by: by } });
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new ClutchError("schema_exists", `${payload_type} was just added by someone else; a version never changes: add ${nextVersion(payload_type, this.versionsOf(name))} instead`);
      throw err;
    }
    await this.refresh();
    return this.byRef.get(ref)!;
  }

  /** Throws invalid_schema unless `json_schema` is a JSON Schema 2020-12 that compiles and describes an object. */
  private assertValidSchema(json_schema: Record<string, unknown>): void {
    const probe = newAjv();
    if (!probe.validateSchema(json_schema)) {
      const e = probe.errors![0]!;
      throw new ClutchError("invalid_schema", `json_schema${e.instancePath || ""}: ${e.message ?? "is not valid"} (JSON Schema 2020-12)`, 400);
    }
    if (json_schema.type !== "object") throw new ClutchError("invalid_schema", `json_schema/type: a payload is a JSON object, so the schema's type must be "object"`, 400);
    try {
      probe.compile({ ...json_schema, $id: "schema://probe@1" });
    } catch (err) {
      throw new ClutchError("invalid_schema", `json_schema: ${(err as Error).message}`, 400);
    }
  }
}

/** What a payload lacks against an expectation (Clutch §3.4 `expects`): required fields, or its payload type's schema. */
export type Unmet = { missing: string[] } | (SchemaViolation & { ref: string });

/**
 * Whether `payload` meets an expectation: every `required` field present, then the schema of
 * `payload_type` as `schemas` knows it now (call `lookup` first for one added elsewhere). Null
 * when it does. The one check of a task's result, at `submit_result` (server/agents/tool-calls.ts)
 * and for a workflow's step (server/workflows/runner.ts), each phrased for its reader.
 */
export function unmetExpectation(schemas: SchemaRegistry | undefined, expects: { payload_type: string | null; required: readonly string[] }, payload: Record<string, unknown>): Unmet | null {
  const missing = expects.required.filter((f) => payload[f] === undefined);
  if (missing.length) return { missing };
  const schema = expects.payload_type ? schemas?.forPayloadType(expects.payload_type) : undefined;
  const v = schema ? schemas!.validate(schema.ref, payload) : null;
  return v && { ...v, ref: schema!.ref };
}

/** The payload type of the version after the newest of `versions` (e.g. `sales.forecast.v3`). */
function nextVersion(payload_type: string, versions: readonly RegisteredSchema[]): string {
  const newest = Math.max(0, ...versions.map((v) => v.version));
  return payload_type.replace(/\.v[0-9]+$/, `.v${newest + 1}`);
}
