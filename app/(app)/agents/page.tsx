/** `/agents`: the directory with no agent picked: an overview and how to register one. */
import type { Metadata } from "next";
import { DirectoryOverview } from "@/components/agents/overview";

export const metadata: Metadata = { title: "Agents · Clutch" };

export default function AgentsPage() {
  return <DirectoryOverview />;
}
