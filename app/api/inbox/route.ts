/**
 * GET /api/inbox → { items, open } (lib/api/types.ts InboxAnswer; docs/channels.md "For you"):
 * the signed-in person's For you inbox, newest first: questions to them or their channels that
 * wait, approvals they may decide that are pending, messages that @mention them, and direct
 * messages the other party wrote in (one item per DM), each with whether it is unread or done;
 * `open` counts those not done. Only channels they may read. 401 unauthenticated; 403 forbidden
 * for an agent key (an agent's inbox is /api/agents/:agent_id/inbox).
 */
import { getClutch } from "@/server/instance";
import { inboxOf } from "@/server/inbox/inbox";
import { json } from "../_lib/http";
import { route } from "../_lib/route";

export const dynamic = "force-dynamic";

export const GET = route({ auth: "person" }, async ({ principal }) => {
  const { store, identity } = getClutch();
  const [readable, marks] = await Promise.all([identity.channels.readable(principal), identity.readMarks.of(principal.agent_id)]);
  return json(await inboxOf(store.queries, { agent_id: principal.agent_id, role: principal.role, email: principal.email }, readable, marks));
});
