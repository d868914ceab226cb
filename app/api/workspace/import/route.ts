/**
 * POST /api/workspace/import `{ pack, variables? }`: an admin imports a PromptPack (RFC 0007,
 * docs/promptpacks.md) as a team. `pack` is the pack as an object, or its JSON or YAML text;
 * `variables` fill its prompts' `{{variables}}`. 201 `{ pack, channel, agents, warnings, notes }`: the
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
});

export const POST = route({ auth: "admin", body: Body, maxBytes: 2 * 1024 * 1024 }, async ({ principal, body }) => {
  const r = await getClutch().importPack(body, principal);
  const out: PackImport = { pack: r.pack, channel: { thread_id: r.channel.thread_id, name: r.channel.name }, agents: r.agents, warnings: r.warnings, notes: r.notes };
  return json(out, 201);
});
