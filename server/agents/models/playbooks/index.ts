/**
 * The playbook registry of the built-in model. A workspace brings its own playbooks as the
 * default export of `<workspace>/playbooks/index.ts` (see examples/sales-analysis/playbooks):
 * playbooks by role name and a `roleOf` that picks one for an agent's prompt. Clutch loads that
 * module by path when it starts the workspace; any agent no playbook covers (and every agent of a
 * workspace without playbooks) gets the generic playbook, which says plainly that it did nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ClutchError } from "../../../errors";
import { generic } from "./generic";
import type { Transcript } from "./transcript";
import type { Action, Playbook } from "./types";
import { isRecord } from "./values";

/** A workspace's playbooks: the default export of its playbooks module. */
export interface Playbooks {
  /** The playbooks by role name, e.g. `{ pm, analyst, qa }`. */
  roles: Record<string, Playbook>;
  /** The role (a key of `roles`) that plays the agent whose prompt `t` holds; null for the generic playbook. */
  roleOf(t: Transcript): string | null;
}

/** Where a workspace keeps its playbooks module, relative to its folder. */
export const PLAYBOOKS_MODULE = "playbooks/index.ts";

function isPlaybooks(v: unknown): v is Playbooks {
  return isRecord(v) && isRecord(v.roles) && Object.values(v.roles).every((p) => typeof p === "function") && typeof v.roleOf === "function";
}

/**
 * The playbooks of the workspace in `workspaceDir` (its `playbooks/index.ts`), or undefined when
 * it has none. Throws a ClutchError MODEL_CONFIG naming the file when the module does not load or
 * its default export is not `{ roles, roleOf }`.
 */
export async function loadPlaybooks(workspaceDir: string): Promise<Playbooks | undefined> {
  const file = path.resolve(workspaceDir, PLAYBOOKS_MODULE);
  if (!fs.existsSync(file)) return undefined;
  let mod: { default?: unknown };
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (e) {
    throw new ClutchError("MODEL_CONFIG", `${file} does not load: ${(e as Error).message}`, 500);
  }
  if (!isPlaybooks(mod.default)) {
    throw new ClutchError("MODEL_CONFIG", `${file} must export default { roles: { <role>: playbook, … }, roleOf(transcript) }`, 500);
  }
  return mod.default;
}

/** The next action of the agent whose prompt `t` holds, and the role that chose it (`generic` when none). */
export function decide(t: Transcript, playbooks?: Playbooks): { role: string; action: Action } {
  const role = playbooks?.roleOf(t) ?? null;
  const playbook = role === null ? undefined : playbooks?.roles[role];
  if (role !== null && playbook) return { role, action: playbook(t) };
  return { role: "generic", action: generic(t) };
}
