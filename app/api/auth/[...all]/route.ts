/**
 * better-auth's routes (server/auth/auth.ts): POST /api/auth/sign-in/email { email, password }
 * (sets the session cookie), POST /api/auth/sign-out, GET /api/auth/get-session,
 * POST /api/auth/change-password { currentPassword, newPassword, revokeOtherSessions? }, ….
 * Public sign-up is closed: accounts come from the first-run setup (POST /api/setup) and invite
 * links (POST /api/join/:token), so /api/auth/sign-up/* answers 403 invite_only.
 */
import { toNextJsHandler } from "better-auth/next-js";
import { getClutch } from "@/server/instance";
import { json } from "../../_lib/http";

export const dynamic = "force-dynamic";

const handler = (req: Request) => {
  if (new URL(req.url).pathname.startsWith("/api/auth/sign-up")) {
    return Promise.resolve(json({ error: { code: "invite_only", message: "accounts are by invitation: ask an admin for an invite link" } }, 403));
  }
  const h = toNextJsHandler(getClutch().identity.auth);
  return req.method === "GET" ? h.GET(req) : h.POST(req);
};

export const GET = handler;
export const POST = handler;
