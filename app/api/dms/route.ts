/**
 * POST /api/dms { with }: the signed-in person's direct message with an agent (`agent:pm-1` or
 * `pm-1`) or a person (`user:<id>`), opened the first time (docs/channels.md "Direct messages"):
 * a private thread of the two, where an agent is the entry agent, so every message to it is a
 * request. 201 { thread } when new, 200 when it existed. 400 invalid_body (yourself); 404
 * unknown_agent / unknown_person; 409 agent_disabled (a disabled agent cannot take requests).
 */
import { z } from "zod";
import { ClutchError } from "@/server/errors";
import { getClutch } from "@/server/instance";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ with: z.string().trim().min(1, "say whom to message: an agent id (agent:pm-1) or a person (user:<id>)").max(200) });

export const POST = route({ auth: "person", body: Body }, async ({ principal, body }) => {
  const { store, registry, identity, deployment } = getClutch();
  const other = body.with.startsWith("user:") || body.with.startsWith("agent:") ? body.with : `agent:${body.with}`;
  if (other === principal.agent_id) throw new ClutchError("invalid_body", "a direct message is with someone else", 400);
  let with_name: string;
  if (other.startsWith("agent:")) {
    const agent = registry.get(other);
    if (!agent) throw new ClutchError("unknown_agent", `there is no agent ${other}`, 404);
    if (await identity.isDisabled(other)) throw new ClutchError("agent_disabled", `${other} is disabled: an admin can enable it on its page`, 409);
    with_name = agent.card.display?.name ?? other.replace(/^agent:/, "");
  } else {
    const person = await identity.person(other.slice("user:".length));
    if (!person || (await identity.isDisabled(other))) throw new ClutchError("unknown_person", `there is no person ${other}`, 404);
    with_name = person.name;
  }
  const { thread, created } = await store.directMessage([principal.agent_id, other], { entry_agent: other.startsWith("agent:") ? other : null, with_name, deployment }, { agent_id: principal.agent_id, display_name: principal.name });
  return json({ thread }, created ? 201 : 200);
});
