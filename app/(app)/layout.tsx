/**
 * The workspace's door (docs/identity.md): every page in here needs a signed-in person. Without
 * one, a workspace with no account yet goes to /setup, otherwise to /sign-in (with the page asked
 * for as `next`). The person is handed to the browser (components/identity/me.tsx), around the
 * live data providers (their cache seeded with the channel list, initial-data.ts) and the workspace
 * shell (sidebar, switcher, dialogs).
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { MeProvider, type Me } from "@/components/identity/me";
import { LiveProviders } from "@/components/live/providers";
import { WorkspaceShell } from "@/components/workspace/workspace-shell";
import { getClutch } from "@/server/instance";
import { initialWorkspace } from "./initial-data";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({ children }: { children: ReactNode }) {
  const h = await headers();
  const { identity } = getClutch();
  const principal = await identity.authenticate(h);
  if (!principal || principal.kind !== "person") {
    if (await identity.needsSetup()) redirect("/setup");
    const path = h.get("x-clutch-path");
    redirect(path && path !== "/" ? `/sign-in?next=${encodeURIComponent(path)}` : "/sign-in");
  }
  const me: Me = { agent_id: principal.agent_id, user_id: principal.user_id, name: principal.name, email: principal.email, role: principal.role };
  return (
    <MeProvider me={me}>
      <LiveProviders initial={await initialWorkspace()}>
        <WorkspaceShell>{children}</WorkspaceShell>
      </LiveProviders>
    </MeProvider>
  );
}
