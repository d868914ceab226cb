/**
 * How a run is named wherever it is listed (channel, Runs menu, approvals, run view): its root
 * task's title, and for a fork the point it was forked at, so a fork never reads as its source
 * (Clutch Protocol §8.3 replay and fork).
 */

/** "Analyze sales (fork at #46)" for a fork at seq 46; the title alone otherwise; null when untitled. */
export function runTitle(title: string | null | undefined, forkedAtSeq?: number | null): string | null {
  if (!title) return null;
  return forkedAtSeq ? `${title} (fork at #${forkedAtSeq})` : title;
}

/**
 * The text of a task's result for people: its `summary`, else its `report_markdown`, `text` or
 * `answer`, else null (a result that is only data). `payload` is a task.result payload (§2.1).
 */
export function resultText(payload: unknown): string | null {
  if (!payload || typeof payload !== "object") return null;
  const p = payload as Record<string, unknown>;
  for (const key of ["summary", "report_markdown", "text", "answer"]) {
    const v = p[key];
    if (typeof v === "string" && v.trim()) return v;
  }
  return null;
}
