/** `/runs?show=&channel=&agent=&requester=`: the runs of every channel the person may read (components/runs/runs-screen.tsx). */
import type { Metadata } from "next";
import { filtersFromParams } from "@/components/runs/api";
import { RunsScreen } from "@/components/runs/runs-screen";

export const metadata: Metadata = { title: "Runs · Clutch" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <RunsScreen initial={filtersFromParams(await searchParams)} />;
}
