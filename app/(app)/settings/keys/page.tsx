/** `/settings/keys`: your personal API keys, for scripts (`Authorization: Bearer <key>`; docs/identity.md). */
import type { Metadata } from "next";
import { MyKeys } from "@/components/identity/my-keys";

export const metadata: Metadata = { title: "API keys · Clutch" };

export default function KeysPage() {
  return <MyKeys />;
}
