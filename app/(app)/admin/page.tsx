/** `/admin`: people and roles, invites, API keys and agents, for the workspace's admins (docs/identity.md). */
import type { Metadata } from "next";
import { AdminPage } from "@/components/identity/admin";

export const metadata: Metadata = { title: "Admin · Clutch" };

export default function Admin() {
  return <AdminPage />;
}
