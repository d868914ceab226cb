/** `/runs/:run_id/compare`: a fork beside the run it was forked from (components/run/compare-screen.tsx). */
import { CompareScreen } from "@/components/run/compare-screen";

export default async function ComparePage({ params }: { params: Promise<{ run_id: string }> }) {
  const { run_id } = await params;
  let id = run_id;
  try {
    id = decodeURIComponent(run_id);
  } catch {
    // a malformed escape: use the segment as it is
  }
  return <CompareScreen key={id} runId={id} />;
}
