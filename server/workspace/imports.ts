/**
 * Imported PromptPacks (docs/promptpacks.md): each pack is stored once per deployment, in the `promptpacks` table,
 * with the values its variables were given, and made into its agents and channel again at every
 * start (server/clutch.ts). `importTeam` is the whole import: read and map the pack
 * (promptpack.ts), check it against the workspace, store it.
 */
import type { Db } from "../db/client";
import { ClutchError } from "../errors";
import { PackError, packToTeam, readPack, type ImportedTeam } from "./promptpack";
import { teamAgents, WorkspaceError, type Workspace, type WorkspaceAgent } from "./workspace";

/** One stored import. */
export interface StoredPack {
  id: string;
  pack: unknown;
  variables: Record<string, string>;
}

export class PackImports {
  /** The imports of `deployment`'s workspace (each deployment has a workspace of its own). */
  constructor(
    private readonly db: Db,
    private readonly deployment: string,
  ) {}

  /** Every imported pack, oldest first. */
  async list(): Promise<StoredPack[]> {
    const rows = await this.db.promptPackImport.findMany({ where: { deployment: this.deployment }, orderBy: { imported_at: "asc" } });
    return rows.map((r) => ({ id: r.id, pack: r.pack, variables: r.variables as Record<string, string> }));
  }

  /**
   * Read, map and check `input.pack` against `workspace` and the channels that exist
   * (`channelExists`), then store it for `by`. Returns the team and its agents, not yet added to
   * the workspace. Throws ClutchError invalid_pack (400, with each problem's JSONPath in
   * `issues`), pack_conflict (409: an agent or the channel exists) or pack_exists (409: a pack
   * with its id was imported).
   */
  async importTeam(
    workspace: Workspace,
    input: { pack: unknown; variables?: Record<string, string> },
    by: string,
    channelExists: (name: string) => Promise<boolean>,
  ): Promise<{ team: ImportedTeam; agents: WorkspaceAgent[] }> {
    const variables = input.variables ?? {};
    let pack: unknown;
    let team: ImportedTeam;
    try {
      pack = readPack(input.pack);
      team = packToTeam(pack, variables);
    } catch (err) {
      if (!(err instanceof PackError)) throw err;
      const [first] = err.issues;
      const more = err.issues.length > 1 ? ` (and ${err.issues.length - 1} more)` : "";
      throw new ClutchError("invalid_pack", `the pack cannot be imported: ${first!.path}: ${first!.message}${more}; nothing was imported`, 400, err.issues as never);
    }
    if (await this.db.promptPackImport.findUnique({ where: { deployment_id: { deployment: this.deployment, id: team.pack.id } } })) {
      throw new ClutchError("pack_exists", `a pack with id ${team.pack.id} was imported already (its channel is #${team.pack.id}); give this one another id`);
    }
    let agents: WorkspaceAgent[];
    try {
      agents = teamAgents(workspace, team);
    } catch (err) {
      if (!(err instanceof WorkspaceError)) throw err;
      throw new ClutchError("pack_conflict", `${err.message}; rename the pack's prompts or its id; nothing was imported`);
    }
    if (await channelExists(team.channel.name)) {
      throw new ClutchError("pack_conflict", `a channel #${team.channel.name} exists already, and the pack's id names its team's channel; give the pack another id; nothing was imported`);
    }
    try {
      await this.db.promptPackImport.create({ data: { deployment: this.deployment, id: team.pack.id, name: team.pack.name, version: team.pack.version, pack: pack as object, variables, imported_by: by } });
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new ClutchError("pack_exists", `a pack with id ${team.pack.id} was just imported by someone else`);
      throw err;
    }
    return { team, agents };
  }
}
