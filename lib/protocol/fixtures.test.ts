/**
 * Every example of seeds 000 and 001 (test/fixtures/seeds) parses with the schema that claims it.
 * The folder is read, not listed here, so a new fixture is checked (or fails as unclaimed).
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentCardSchema } from "./agent-card";
import { CapAttachmentSchema, CapManifestObjectSchema, CapManifestSchema, CapMessageSchema } from "./cap";
import { ClutchMessageSchema, EnvelopeSchema } from "./envelope";
import { MESSAGE_TYPES, PAYLOAD_BY_TYPE, type MessageType } from "./payloads";

const DIR = fileURLToPath(new URL("../../test/fixtures/seeds/", import.meta.url));
const files = readdirSync(DIR).sort();
const jsonFiles = files.filter((f) => f.endsWith(".json"));
const load = (f: string): unknown => JSON.parse(readFileSync(DIR + f, "utf8"));

/** Problems found (empty when valid), as "path: message" lines. */
type Check = (value: unknown, file: string) => string[];

const issues = (r: { success: boolean; error?: z.ZodError }) =>
  r.success ? [] : r.error!.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);

const zodCheck =
  (schema: z.ZodType): Check =>
  (v) =>
    issues(schema.safeParse(v));

/** A fragment (`type`, `task_id?`, `payload` only): its payload must fit its type, and it must make a valid envelope. */
const FRAGMENT_KEYS = new Set(["type", "task_id", "payload"]);
const checkFragment: Check = (v, file) => {
  if (typeof v !== "object" || v === null) return ["(root): not an object"];
  const frag = v as Record<string, unknown>;
  const problems = Object.keys(frag)
    .filter((k) => !FRAGMENT_KEYS.has(k))
    .map((k) => `${k}: not a fragment field`);
  const type = frag.type as MessageType;
  if (!MESSAGE_TYPES.includes(type)) return [...problems, `type: unknown type ${JSON.stringify(frag.type)}`];
  if (!file.includes(type.replace(".", "-"))) problems.push(`type: ${type} does not match the file name`);
  problems.push(...issues(PAYLOAD_BY_TYPE[type].safeParse(frag.payload)).map((p) => `payload.${p}`));
  const envelope = {
    v: "clutch/0.1",
    id: "msg_fixture",
    ts: "2026-02-01T13:20:11.123Z",
    thread_id: "thr_fixture",
    run_id: "run_fixture",
    task_id: "task_fixture",
    from: { agent_id: "agent:orchestrator" },
    to: [],
    ...frag,
  };
  problems.push(...issues(ClutchMessageSchema.safeParse(envelope)).map((p) => `as envelope: ${p}`));
  return problems;
};

/** A CAP message must also carry the type its file name announces. */
const checkCapMessage: Check = (v, file) => {
  const problems = zodCheck(CapMessageSchema)(v, file);
  const type = (v as { type?: unknown }).type;
  if (typeof type === "string" && !file.includes(type.replace(/_/g, "-"))) problems.push(`type: ${type} does not match the file name`);
  return problems;
};

/**
 * Seed 000's JSON Schema and the one zod derives from CapManifestObjectSchema agree on `type`,
 * `required`, property names, `items` and `patternProperties` (zod: `propertyNames.pattern` +
 * `additionalProperties`). Descriptions and `$id` are ignored.
 */
type JsonSchema = Record<string, unknown>;
function compareSchemas(seed: JsonSchema, ours: JsonSchema, at: string): string[] {
  const out: string[] = [];
  const norm = (t: unknown) => JSON.stringify(Array.isArray(t) ? [...t].sort() : t);
  if (norm(seed.type) !== norm(ours.type)) out.push(`${at}: type ${norm(seed.type)} in the seed, ${norm(ours.type)} in zod`);
  const req = (s: JsonSchema) => norm((s.required as string[] | undefined) ?? []);
  if (req(seed) !== req(ours)) out.push(`${at}: required ${req(seed)} in the seed, ${req(ours)} in zod`);
  if (seed.properties) {
    const sp = seed.properties as Record<string, JsonSchema>;
    const op = (ours.properties ?? {}) as Record<string, JsonSchema>;
    if (norm(Object.keys(sp)) !== norm(Object.keys(op))) {
      out.push(`${at}: properties ${norm(Object.keys(sp))} in the seed, ${norm(Object.keys(op))} in zod`);
    }
    for (const k of Object.keys(sp)) if (op[k]) out.push(...compareSchemas(sp[k], op[k], `${at}.${k}`));
  }
  if (seed.items) out.push(...compareSchemas(seed.items as JsonSchema, (ours.items ?? {}) as JsonSchema, `${at}[]`));
  if (seed.patternProperties) {
    const [[pattern, sub]] = Object.entries(seed.patternProperties as Record<string, JsonSchema>);
    const names = (ours.propertyNames ?? {}) as JsonSchema;
    if (names.pattern !== pattern) out.push(`${at}: key pattern ${pattern} in the seed, ${String(names.pattern)} in zod`);
    out.push(...compareSchemas(sub, (ours.additionalProperties ?? {}) as JsonSchema, `${at}{${pattern}}`));
  }
  return out;
}
const checkManifestJsonSchema: Check = (v) =>
  compareSchemas(v as JsonSchema, z.toJSONSchema(CapManifestObjectSchema, { io: "input" }) as JsonSchema, "(root)");

interface Claim {
  name: string;
  pattern: RegExp;
  check: Check;
  /** Keys whose removal must be reported at that key (for zod-checked claims). */
  required?: string[];
  schema?: z.ZodType;
}

const CLAIMS: Claim[] = [
  { name: "seed 000 manifest JSON Schema", pattern: /^000-manifest-schema\.json$/, check: checkManifestJsonSchema },
  {
    name: "CapManifestSchema",
    pattern: /^000-manifest-(?!schema\.json$)[A-Za-z0-9_-]+\.json$/,
    check: zodCheck(CapManifestSchema),
    schema: CapManifestSchema,
    required: ["id", "system_prompt", "allowed_agents", "delegate_rules", "mcp_bindings"],
  },
  {
    name: "CapMessageSchema",
    pattern: /^000-msg-.+\.json$/,
    check: checkCapMessage,
    schema: CapMessageSchema,
    required: ["type", "task_id", "sender_id", "recipient_id"],
  },
  {
    name: "CapAttachmentSchema",
    pattern: /^000-attachment-.+\.json$/,
    check: zodCheck(CapAttachmentSchema),
    schema: CapAttachmentSchema,
    required: ["type"],
  },
  {
    name: "ClutchMessageSchema",
    pattern: /^001-envelope.*\.json$/,
    check: zodCheck(ClutchMessageSchema),
    schema: ClutchMessageSchema,
    required: Object.keys(EnvelopeSchema.shape).filter((k) => !EnvelopeSchema.shape[k as keyof typeof EnvelopeSchema.shape].safeParse(undefined).success),
  },
  {
    name: "AgentCardSchema",
    pattern: /^001-agent-card.*\.json$/,
    check: zodCheck(AgentCardSchema),
    schema: AgentCardSchema,
    required: ["v", "agent_id", "display", "capabilities"],
  },
  { name: "payload schema of the fragment's type", pattern: /^001-fragment-.+\.json$/, check: checkFragment },
];

const claimsOf = (f: string) => CLAIMS.filter((c) => c.pattern.test(f));

describe("seed fixtures (test/fixtures/seeds)", () => {
  it("holds the seed examples", () => {
    expect(jsonFiles).toEqual(
      expect.arrayContaining([
        "000-manifest-schema.json",
        "000-manifest-pm-1.json",
        "000-manifest-analyst-1.json",
        "000-manifest-qa-1.json",
        "000-msg-base-message.json",
        "000-msg-base-delegation-notice.json",
        "000-msg-base-error-response.json",
        "000-msg-error-response-504.json",
        "000-msg-flow-09-oversight-inquiry-qa-to-analyst.json",
        "001-envelope.json",
        "001-agent-card.json",
        "001-fragment-routing-decision.json",
        "001-fragment-task-error.json",
      ]),
    );
    // Seed 000: the JSON Schema, 3 manifests, 15 CAP messages, 3 attachments; seed 001: 4.
    expect(jsonFiles.length).toBeGreaterThanOrEqual(26);
  });

  it("has no file other than fixtures, their notes and the README", () => {
    const other = files.filter((f) => !f.endsWith(".json") && !f.endsWith(".note.md") && f !== "README.md");
    expect(other).toEqual([]);
    for (const note of files.filter((f) => f.endsWith(".note.md"))) {
      expect(files, `${note} has no sibling fixture`).toContain(note.replace(/\.note\.md$/, ".json"));
    }
  });

  it.each(CLAIMS.map((c) => [c.name, c] as const))("claim %s matches at least one fixture", (_n, claim) => {
    expect(jsonFiles.filter((f) => claim.pattern.test(f)).length).toBeGreaterThan(0);
  });

  describe.each(jsonFiles)("%s", (file) => {
    it("is claimed by exactly one schema and parses with it", () => {
      const claims = claimsOf(file);
      expect(claims.map((c) => c.name), `${file} must be claimed by exactly one schema`).toHaveLength(1);
      expect(claims[0].check(load(file), file)).toEqual([]);
    });

    it("fails its schema when a required field is removed", () => {
      const [claim] = claimsOf(file);
      if (!claim?.schema || !claim.required) return; // JSON Schema and fragments: no zod schema of their own
      const value = load(file) as Record<string, unknown>;
      for (const key of claim.required) {
        const { [key]: _dropped, ...rest } = value;
        const r = claim.schema.safeParse(rest);
        expect(r.success, `${file} without ${key} must not parse`).toBe(false);
        expect(r.error!.issues.map((i) => i.path[0])).toContain(key);
      }
    });
  });
});

describe("fixture checks can fail", () => {
  it("the JSON Schema comparison reports a field the seed requires and zod does not", () => {
    const seed = load("000-manifest-schema.json") as { required: string[] };
    const changed = { ...seed, required: [...seed.required, "overseer"] };
    expect(checkManifestJsonSchema(changed, "x")).toEqual([
      expect.stringContaining("(root): required"),
    ]);
  });

  it("a fragment whose payload misses a field is reported at payload.<field>", () => {
    const frag = load("001-fragment-routing-decision.json") as { payload: Record<string, unknown> };
    const { selected: _s, ...payload } = frag.payload;
    const problems = checkFragment({ ...frag, payload }, "001-fragment-routing-decision.json");
    expect(problems).toContain("payload.selected: Invalid input: expected string, received undefined");
  });

  it("a fragment with an envelope-only field is reported", () => {
    const frag = load("001-fragment-task-error.json") as Record<string, unknown>;
    expect(checkFragment({ ...frag, run_id: "run_x" }, "001-fragment-task-error.json")).toContain("run_id: not a fragment field");
  });

  it("a CAP message filed under the wrong type is reported", () => {
    const msg = load("000-msg-flow-03-message-user-replies.json");
    expect(checkCapMessage(msg, "000-msg-flow-03-error-response.json")).toEqual([
      "type: message does not match the file name",
    ]);
  });

  it("a name matching no pattern is unclaimed", () => {
    expect(claimsOf("002-pack.json")).toEqual([]);
    expect(claimsOf("000-manifest-schema.json").map((c) => c.name)).toEqual(["seed 000 manifest JSON Schema"]);
  });
});
