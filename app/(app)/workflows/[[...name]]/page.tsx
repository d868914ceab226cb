/** `/workflows`, `/workflows/new` and `/workflows/<name>`: the workflows (components/workflows/workflows-browser.tsx). */
import type { Metadata } from "next";
import { WorkflowsBrowser } from "@/components/workflows/workflows-browser";

export const metadata: Metadata = { title: "Workflows · Clutch" };

export default async function WorkflowsPage({ params }: { params: Promise<{ name?: string[] }> }) {
  const { name } = await params;
  const selected = name?.[0] ? decodeURIComponent(name[0]) : null;
  return <WorkflowsBrowser selected={selected} />;
}
