/**
 * POST /api/workspace/import `{ pack, variables?, team?, id? }`: an admin imports a PromptPack
 * (RFC 0007, docs/promptpacks.md) or an AutoGen team (docs/adapters.md "AutoGen") as a team.
 * `pack` is the pack or AutoGen spec as an object, or its JSON or YAML text; `variables` fill a
 * pack's prompts' `{{variables}}`. An AutoGen spec is told by its shape (`provider` and
 * `component_type: "team"`, or a gallery's `components.teams`): `team` picks a gallery's team by
 * index or label (default: its first, with a note), `id` overrides the team's id (its channel). 201 `{ pack, channel, agents, warnings, notes }`: the
 * agents work at once, in the new channel named after the pack. 400 invalid_pack names each
 * problem by JSONPath (`issues`); 409 pack_exists, pack_conflict, no_workspace.
 */
import { z } from "zod";
import type { PackImport } from "@/lib/api/types";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";
import { route } from "../../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  pack: z.union([z.string().min(1, "pack is empty"), z.record(z.string(), z.unknown())], { error: "pack is the PromptPack: an object, or its JSON or YAML text" }),
  variables: z.record(z.string(), z.string().max(2000)).default({}),
  team: z.union([z.number().int().nonnegative(), z.string().min(1).max(200)]).optional(),
  id: z.string().min(1).max(60).optional(),
});

export const POST = route({ auth: "admin", body: Body, maxBytes: 2 * 1024 * 1024 }, async ({ principal, body }) => {
  const r = await getClutch().importPack(body, principal);
  const out: PackImport = { pack: r.pack, channel: { thread_id: r.channel.thread_id, name: r.channel.name }, agents: r.agents, warnings: r.warnings, notes: r.notes };
  return json(out, 201);
});
