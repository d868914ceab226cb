/**
 * Imported teams (docs/promptpacks.md, docs/adapters.md "AutoGen"): each PromptPack or AutoGen
 * team is stored once per deployment, in the `promptpacks` table, and made into its agents and
 * channel again at every start (server/clutch.ts). `importTeam` is the whole import: read the
 * input, map it (promptpack.ts, or autogen.ts when it has an AutoGen team's shape), check it
 * against the workspace, store it.
 *
 * A PromptPack is stored as given, with its variables. An AutoGen team is stored as the tagged
 * JSON `{ kind: "autogen", id, team }` (StoredAutogen): the one team component (picked from a
 * gallery), its `api_key`s removed, and the team id it was imported under.
 */
import type { Db } from "../db/client";
import { ClutchError } from "../errors";
import { autogenToTeam, isAutogenSpec, pickTeam, redactSecrets, type AutogenImport } from "./autogen";
import { PackError, packToTeam, readPack, type ImportedTeam } from "./promptpack";
import { teamAgents, WorkspaceError, type Workspace, type WorkspaceAgent } from "./workspace";

/** An imported team: a PromptPack's, or an AutoGen team's with its group-chat pattern (`autogen`, server/workspace/autogen.ts). */
export type Team = ImportedTeam & { autogen?: AutogenImport };

/** One stored import. */
export interface StoredPack {
  id: string;
  pack: unknown;
  variables: Record<string, string>;
}

/** How an AutoGen team is stored in the `pack` column (see the module doc). */
export interface StoredAutogen {
  kind: "autogen";
  id: string;
  team: unknown;
}

const isStoredAutogen = (pack: unknown): pack is StoredAutogen => (pack as StoredAutogen | null)?.kind === "autogen" && typeof (pack as StoredAutogen).id === "string";

/** The team a stored import makes (a PromptPack's or an AutoGen team's). Throws PackError when it no longer maps. */
export function storedTeam(stored: StoredPack): Team {
  return isStoredAutogen(stored.pack) ? autogenToTeam(stored.pack.team, { id: stored.pack.id }) : packToTeam(stored.pack, stored.variables);
}

/**
 * What an import's input is mapped to, and what is stored for it: an AutoGen team (by shape,
 * `team` picking one of a gallery's, `id` naming it) or a PromptPack. Throws PackError.
 */
export function readImport(input: { pack: unknown; variables?: Record<string, string>; team?: string | number; id?: string }): { team: Team; stored: unknown } {
  const pack = readPack(input.pack);
  if (isAutogenSpec(pack)) {
    const team = autogenToTeam(pack, { team: input.team, id: input.id });
    return { team, stored: { kind: "autogen", id: team.pack.id, team: redactSecrets(pickTeam(pack, input.team).team) } satisfies StoredAutogen };
  }
  if (input.team !== undefined || input.id !== undefined) throw new PackError([{ path: "$", message: "team and id are for AutoGen specs; this is not one (an AutoGen team has provider and component_type \"team\")" }]);
  return { team: packToTeam(pack, input.variables ?? {}), stored: pack };
}

function isAutogenInput(pack: unknown): boolean {
  try {
    return isAutogenSpec(readPack(pack));
  } catch {
    return false;
  }
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
    input: { pack: unknown; variables?: Record<string, string>; team?: string | number; id?: string },
    by: string,
    channelExists: (name: string) => Promise<boolean>,
  ): Promise<{ team: Team; agents: WorkspaceAgent[] }> {
    const variables = input.variables ?? {};
    let pack: unknown;
    let team: Team;
    try {
      ({ team, stored: pack } = readImport(input));
    } catch (err) {
      if (!(err instanceof PackError)) throw err;
      const [first] = err.issues;
      const more = err.issues.length > 1 ? ` (and ${err.issues.length - 1} more)` : "";
      const what = isAutogenInput(input.pack) ? "the AutoGen team" : "the pack";
      throw new ClutchError("invalid_pack", `${what} cannot be imported: ${first!.path}: ${first!.message}${more}; nothing was imported`, 400, err.issues as never);
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
