/**
 * How a person reads a run in a link (docs/channels.md "Forks"): by its number in its channel
 * and its title, "#12 Analyze sales", "#13 Analyze sales (fork at #46)", never by its id.
 */

/** "#12 Analyze sales"; "#12 Untitled run" without a title; the title alone without a number. */
export function runLinkLabel(run: { run_number?: number | null; title?: string | null }): string {
  const title = run.title?.trim() || "Untitled run";
  return run.run_number ? `#${run.run_number} ${title}` : title;
}
