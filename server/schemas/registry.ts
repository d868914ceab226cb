/**
 * The schema registry's built-in schemas (Clutch Protocol §3; docs/schemas.md): every payload
 * Clutch itself defines has a versioned JSON Schema, generated from its zod schema (zod's JSON
 * Schema output, draft 2020-12, as input: what a sender may send):
 *
 * - the built-in payload types (§3.3): `research.summary.v1` is `schema://clutch/research/summary@1`
 *   (the seed's own example of §3.2);
 * - the payload of every message type (§2): `task.request` is `schema://clutch/message/task.request@1`.
 *
 * Schemas are compiled once with Ajv (JSON Schema 2020-12) and cached; `validate` answers the
 * JSON pointer (RFC 6901) of the first failing field.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { z } from "zod";
import { BUILTIN_PAYLOAD_TYPES, MESSAGE_TYPES, PAYLOAD_BY_TYPE, type MessageType } from "@/lib/protocol/payloads";

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
  /** Where it comes from: Clutch's own zod schemas. */
  source: "builtin";
}

/** A validation failure: where (a JSON pointer into the payload) and why. */
export interface SchemaViolation {
  pointer: string;
  message: string;
}

const REF = /^schema:\/\/([a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)*)@([1-9][0-9]*)$/;

/** `schema://<name>@<version>` → its name and version; null when it is not one. */
export function parseSchemaRef(ref: string): { name: string; version: number } | null {
  const m = REF.exec(ref);
  return m ? { name: m[1]!, version: Number(m[2]) } : null;
}

/** The ref of payload type `<domain>.<name>.v<N>` (§3.2): `schema://clutch/<domain>/<name>@<N>`; null for another shape. */
export function payloadTypeRef(payload_type: string): string | null {
  const m = /^([a-z0-9_-]+)\.([a-z0-9_.-]+)\.v([1-9][0-9]*)$/.exec(payload_type);
  return m ? `schema://clutch/${m[1]}/${m[2]!.replaceAll(".", "/")}@${m[3]}` : null;
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
}

function builtins(): RegisteredSchema[] {
  const out: RegisteredSchema[] = [];
  for (const [payload_type, schema] of Object.entries(BUILTIN_PAYLOAD_TYPES)) {
    const ref = payloadTypeRef(payload_type)!;
    const { name, version } = parseSchemaRef(ref)!;
    out.push({ ref, name, version, payload_type, description: `The built-in payload type ${payload_type} (Clutch Protocol §3.3).`, json_schema: jsonSchemaOf(schema), source: "builtin" });
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
  return out.sort((a, b) => a.ref.localeCompare(b.ref));
}

/** The registry of built-in schemas, with their compiled validators. */
export class SchemaRegistry {
  private readonly schemas = builtins();
  private readonly byRef = new Map(this.schemas.map((s) => [s.ref, s]));
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly ajv = new Ajv2020({ allErrors: false, strict: false });

  /** Every schema, by ref. */
  list(): RegisteredSchema[] {
    return this.schemas;
  }

  /** The schema `ref` names, or undefined. */
  get(ref: string): RegisteredSchema | undefined {
    return this.byRef.get(ref);
  }

  /** The schema of payload type `payload_type` (§3.2), or undefined. */
  forPayloadType(payload_type: string): RegisteredSchema | undefined {
    const ref = payloadTypeRef(payload_type);
    return ref ? this.byRef.get(ref) : undefined;
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
      this.compiled.set(ref, (check = this.ajv.compile(schema.json_schema)));
    }
    if (check(value)) return null;
    const e = check.errors![0]!;
    const missing = e.keyword === "required" ? `/${String((e.params as { missingProperty: string }).missingProperty).replaceAll("~", "~0").replaceAll("/", "~1")}` : "";
    return { pointer: `${e.instancePath}${missing}`, message: e.message ?? "does not match its schema" };
  }
}

let builtin: SchemaRegistry | null = null;

/** The registry (built on first use: generating and sorting the built-ins takes a few ms). */
export function schemaRegistry(): SchemaRegistry {
  return (builtin ??= new SchemaRegistry());
}
