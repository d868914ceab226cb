/**
 * `/runs/:run_id`: a run's task DAG, live, with replay and fork. `?at=<seq>` opens the
 * replay at that event.
 */
import { runDetailUrl } from "@/components/run/api";
import { RunScreen } from "@/components/run/run-screen";

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default async function RunPage({
  params,
  searchParams,
}: {
  params: Promise<{ run_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { run_id } = await params;
  const at = (await searchParams).at;
  const seq = typeof at === "string" && /^\d+$/.test(at) ? Number(at) : null;
  const id = decode(run_id);
  return (
    <>
      {/* The run's summary and task tree start loading with the HTML, before the scripts run. */}
      <link rel="preload" href={runDetailUrl(id)} as="fetch" crossOrigin="anonymous" />
      <RunScreen key={id} runId={id} initialAt={seq} />
    </>
  );
}
