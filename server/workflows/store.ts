/**
 * Stored workflows (docs/workflows.md): the `workflows` table, one row per workflow of a deployment with its
 * source text and version. The workspace folder's `workflows/*.yaml|yml|json` are added at start
 * when no workflow of their name is stored yet; after that the UI and the API edit them.
 */
import fs from "node:fs";
import { parse as readYamlText } from "yaml";
import path from "node:path";
import { parseWorkflow, type Workflow } from "@/lib/workflows/definition";
import { parseRequirement, RequirementError } from "../router/requirement";
import type { Db } from "../db/client";
import { ClutchError } from "../errors";
import { log } from "../log";

/** The YAML or JSON value of `source`, or null when it is neither. */
function readYaml(source: string): unknown {
  try {
    return readYamlText(source, { maxAliasCount: 100 });
  } catch {
    return null;
  }
}

/** A stored workflow: its definition, its source as written, who saved it last and when. */
export interface StoredWorkflow {
  name: string;
  version: number;
  source: string;
  workflow: Workflow;
  updated_by: string;
  updated_at: string;
}

/** Parse and check `source`: the workflow, or ClutchError invalid_workflow (400) with every problem's path in `issues`. */
export function checkWorkflow(source: string): Workflow {
  const parsed = parseWorkflow(source);
  const issues = parsed.ok ? [] : [...parsed.issues];
  // Capabilities are requirements the router must read (a version range), whatever else is wrong.
  const raw = parsed.ok ? parsed.workflow : (readYaml(source) as { steps?: unknown } | null);
  (Array.isArray(raw?.steps) ? (raw.steps as { capability?: unknown }[]) : []).forEach((s, i) => {
    if (typeof s?.capability !== "string" || !s.capability.trim()) return;
    try {
      parseRequirement(s.capability);
    } catch (err) {
      if (err instanceof RequirementError) issues.push({ path: `steps.${i}.capability`, message: err.message });
      else throw err;
    }
  });
  if (issues.length || !parsed.ok) {
    const first = issues[0]!;
    throw new ClutchError("invalid_workflow", `${first.path || "the workflow"}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}; nothing was saved`, 400, issues as never);
  }
  return parsed.workflow;
}

/** A row as a StoredWorkflow; null (and logged) when its source no longer parses. */
function storedOf(r: { name: string; version: number; source: string; updated_by: string; updated_at: Date }): StoredWorkflow | null {
  const parsed = parseWorkflow(r.source);
  if (!parsed.ok) {
    log.warn({ workflow: r.name, issues: parsed.issues }, "a stored workflow no longer parses");
    return null;
  }
  return { name: r.name, version: r.version, source: r.source, workflow: parsed.workflow, updated_by: r.updated_by, updated_at: r.updated_at.toISOString() };
}

export class WorkflowStore {
  /** The workflows of `deployment`'s workspace (each deployment has a workspace of its own). */
  constructor(
    private readonly db: Db,
    private readonly deployment: string,
  ) {}

  /** Every workflow, by name. A stored source that no longer parses is left out (and logged). */
  async list(): Promise<StoredWorkflow[]> {
    const rows = await this.db.workflowDefinition.findMany({ where: { deployment: this.deployment }, orderBy: { name: "asc" } });
    return rows.flatMap((r) => storedOf(r) ?? []);
  }

  /** The workflow `name`, or null. */
  async get(name: string): Promise<StoredWorkflow | null> {
    const row = await this.db.workflowDefinition.findUnique({ where: { deployment_name: { deployment: this.deployment, name } } });
    return row ? storedOf(row) : null;
  }

  /**
   * Save `source` (checked with `checkWorkflow`) for `by`: a new workflow at version 1, or the next
   * version of the one with its name. `expectedVersion` (the version the editor started from)
   * refuses a save over someone else's: ClutchError workflow_changed (409).
   */
  async save(source: string, by: string, expectedVersion?: number): Promise<StoredWorkflow> {
    const workflow = checkWorkflow(source);
    const name = workflow.workflow;
    const saved = await this.db.$transaction(async (tx) => {
      const current = await tx.workflowDefinition.findUnique({ where: { deployment_name: { deployment: this.deployment, name } } });
      if (expectedVersion !== undefined && (current?.version ?? 0) !== expectedVersion) {
        throw new ClutchError("workflow_changed", `${name} is at version ${current?.version ?? 0} now, not ${expectedVersion}: someone saved it meanwhile; reload it and apply your change again`);
      }
      const version = (current?.version ?? 0) + 1;
      return tx.workflowDefinition.upsert({ where: { deployment_name: { deployment: this.deployment, name } }, create: { deployment: this.deployment, name, version, source, updated_by: by }, update: { version, source, updated_by: by, updated_at: new Date() } });
    });
    return { name, version: saved.version, source, workflow, updated_by: saved.updated_by, updated_at: saved.updated_at.toISOString() };
  }

  /** Add the workspace folder's workflows (`<dir>/workflows/*.yaml|yml|json`) that are not stored yet. One that does not parse is logged and skipped. */
  async seedFrom(dir: string | null): Promise<void> {
    const folder = dir ? path.join(dir, "workflows") : null;
    if (!folder || !fs.existsSync(folder)) return;
    for (const file of fs.readdirSync(folder).filter((f) => /\.(ya?ml|json)$/.test(f)).sort()) {
      const source = fs.readFileSync(path.join(folder, file), "utf8");
      try {
        const wf = checkWorkflow(source);
        if (await this.db.workflowDefinition.findUnique({ where: { deployment_name: { deployment: this.deployment, name: wf.workflow } } })) continue;
        await this.db.workflowDefinition.create({ data: { deployment: this.deployment, name: wf.workflow, version: 1, source, updated_by: "workspace" } });
      } catch (err) {
        if ((err as { code?: string }).code === "P2002") continue;
        log.error({ err, file: path.join(folder, file) }, "a workspace workflow is invalid; left out");
      }
    }
  }
}
