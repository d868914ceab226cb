/**
 * qa-1's playbook (CAP's example, "QAAgent", and CAP "Oversight"). A review task's request
 * carries the work under review in payload.input (`{ review_of, result: { summary,
 * report_markdown, data } }`, read loosely). One step per model call:
 *
 *   1. DataServer__query_data  its own recomputation of the current quarter by the analysis's
 *                              breakdown (year()/quarter() filter, unlike the analyst's ranges)
 *   2. ask <author>            oversight_inquiry: true — confirm data source and filters, citing the
 *                              figure it checked and whether it matched               → end turn
 *   3. submit_result           payload_type "review.feedback.v1", data { decision, comments,
 *                              blocking_issues } — approved when every recomputed figure matches
 *                              within 0.01 and no section is missing; else changes_requested
 */
import { clip, messageText, RESULT_KEYS, reviewedWork as readReviewedWork, type ReviewedWork as Work } from "@/server/agents/models/playbooks/common";
import type { Transcript } from "@/server/agents/models/playbooks/transcript";
import { call, endTurn, type Action, type Playbook } from "@/server/agents/models/playbooks/types";
import { num, num0, numberLeaves, str, tableOf } from "@/server/agents/models/playbooks/values";
import { money, readAnalysis, totalOf, type SalesAnalysis } from "./analysis";
import { dimensionOf, QUERY_DATA } from "./sales";
import { PERIODS, sameSql, sqlQaRecompute, type Dimension } from "./sql";

export const TOLERANCE = 0.01;

/** The work under review, by its author (analyst-1 when the request names none). */
interface ReviewedWork extends Work {
  author: string;
}

function reviewedWork(t: Transcript): ReviewedWork {
  const work = readReviewedWork(t);
  return { ...work, author: work.author ?? "agent:analyst-1" };
}

interface Check {
  figure: string;
  reported: number | null;
  recomputed: number;
  ok: boolean;
}

/** Compares qa-1's recomputed rows with the analysis (exact shape) or, loosely, with any number in the result. */
function compare(rows: { key: string; sales: number; profit: number }[], work: ReviewedWork, analysis: SalesAnalysis | null): Check[] {
  const label = PERIODS.current.label;
  const checks: Check[] = [];
  const withTotal = rows.length > 1 ? [...rows, { key: "Total", sales: rows.reduce((s, r) => s + r.sales, 0), profit: rows.reduce((s, r) => s + r.profit, 0) }] : rows;
  if (analysis) {
    for (const r of withTotal) {
      const rep = analysis.breakdown.find((b) => b.key === r.key) ?? (r.key === "Total" ? totalOf(analysis.breakdown) : undefined);
      for (const m of ["sales", "profit"] as const) {
        const reported = rep ? rep[m].current : null;
        checks.push({ figure: `${label} ${m}, ${r.key}`, reported, recomputed: r[m], ok: reported !== null && Math.abs(reported - r[m]) <= TOLERANCE });
      }
    }
    return checks;
  }
  const numbers = [...numberLeaves(work.result), ...numbersIn(str(work.result.report_markdown) ?? "")];
  for (const r of withTotal) {
    const hit = numbers.find((n) => Math.abs(n - r.sales) <= TOLERANCE + 0.005);
    checks.push({ figure: `${label} sales, ${r.key}`, reported: hit ?? null, recomputed: r.sales, ok: hit !== undefined });
  }
  return checks;
}

function numbersIn(text: string): number[] {
  return [...text.matchAll(/-?\$?\d[\d,]*(\.\d+)?/g)].map((m) => num(m[0])).filter((n): n is number => n !== null);
}

function recomputed(value: unknown): { key: string; sales: number; profit: number }[] {
  const tb = tableOf(value);
  return (tb?.rows ?? []).map((r) => ({ key: String(r.key ?? r.region ?? r.segment ?? "Total"), sales: num0(r.sales), profit: num0(r.profit) }));
}

function missingSections(a: SalesAnalysis | null, work: ReviewedWork): string[] {
  if (!a) return RESULT_KEYS.some((k) => k in work.result) ? [] : ["the result under review is empty"];
  const out: string[] = [];
  if (!a.breakdown.length) out.push("breakdown by " + a.dimension);
  if (!a.products || a.products.top_increase.length === 0 || a.products.top_decrease.length === 0) out.push("top 5 products up and down");
  if (!a.churn) out.push("churned customers");
  if (!a.december) out.push("December effect");
  return out;
}

function inquiry(checks: Check[], dim: Dimension, error: string | undefined): string {
  if (error) {
    return `I could not recompute any figure (my query failed: ${clip(error, 200)}). Please confirm the data source and the filters you applied for ${PERIODS.current.label} ${dim === "total" ? "" : `by ${dim}`}.`;
  }
  const bad = checks.filter((c) => !c.ok);
  const sample = checks.find((c) => c.ok && !c.figure.endsWith("Total")) ?? checks[0];
  const head = bad.length
    ? `I recomputed ${PERIODS.current.label} sales and profit${dim === "total" ? "" : ` by ${dim}`} with my own query and ${bad.length} figure(s) do not match: ` +
      bad.slice(0, 4).map((c) => `${c.figure} — you report ${c.reported === null ? "nothing" : money(c.reported)}, I get ${money(c.recomputed)}`).join("; ") + "."
    : `I recomputed ${PERIODS.current.label} sales and profit${dim === "total" ? "" : ` by ${dim}`} with my own query (year = 2017 and quarter = 4): all ${checks.length} figures match within $${TOLERANCE}` +
      (sample ? `, e.g. ${sample.figure} ${money(sample.recomputed)}.` : ".");
  return `${head} Please confirm the data source and any filters you applied.`;
}

export const qa: Playbook = (t) => {
  if (t.ownTaskStopped()) return endTurn("My review was stopped; nothing more to do.");
  const question = t.pendingQuestions()[0];
  if (question) {
    return call("reply", {
      to: question.event?.from.agent_id ?? "user",
      reply_to: question.event?.id,
      text: `I am reviewing the work for accuracy: I recompute figures with my own queries and compare them with the result (tolerance $${TOLERANCE}).`,
    });
  }
  const work = reviewedWork(t);
  // The runner spreads the result's `data` into it; accept it nested too.
  const analysis = readAnalysis(work.result) ?? readAnalysis(work.result.data);
  const dim = analysis?.dimension ?? dimensionOf(t.requestText());
  const sql = sqlQaRecompute(dim);

  const q = t.attempt(QUERY_DATA, (i) => sameSql(i.sql, sql));
  if (q.status === "todo" || q.status === "retry") return call(QUERY_DATA, { sql });
  if (q.status === "pending") return endTurn("Waiting for my recomputation query.");
  const error = q.status === "failed" ? q.error : undefined;
  const checks = q.status === "ok" ? compare(recomputed(q.value), work, analysis) : [];

  const ask = t.lastCall("ask", (i) => i.oversight_inquiry === true);
  if (!ask) return call("ask", { to: work.author, question: inquiry(checks, dim, error), oversight_inquiry: true });
  if (!ask.outcome) return endTurn("Waiting for my inquiry to be sent.");
  const answer = ask.outcome.ok ? t.answerTo(ask) : undefined;
  if (ask.outcome.ok && !answer) return endTurn(`Sent an oversight inquiry to ${t.nameOf(work.author)}; waiting for the answer.`);

  if (t.lastSubmitIndex() >= 0) return endTurn("Review submitted.");
  return submitReview(checks, missingSections(analysis, work), error, answer ? { text: messageText(answer), by: t.nameOf(work.author) } : undefined);
};

function submitReview(checks: Check[], missing: string[], error: string | undefined, answer: { text: string; by: string } | undefined): Action {
  const bad = checks.filter((c) => !c.ok);
  const blocking: Record<string, unknown>[] = [
    ...bad.map((c) => ({ figure: c.figure, reported: c.reported, recomputed: c.recomputed, difference: c.reported === null ? null : c.reported - c.recomputed })),
    ...missing.map((m) => ({ missing: m })),
  ];
  const decision = blocking.length ? "changes_requested" : "approved";
  const comments: string[] = [];
  if (error) comments.push(`Could not recompute: my query failed (${clip(error, 200)}); approval rests on the author's stated source and filters.`);
  else if (checks.length) {
    const ok = checks.filter((c) => c.ok);
    const sample = ok.find((c) => !c.figure.endsWith("Total")) ?? ok[0];
    comments.push(
      `Recomputed ${checks.length} figure(s) with an independent query (year(order_date) = 2017 AND quarter(order_date) = 4): ${ok.length} match within $${TOLERANCE}` +
        (sample ? ` (e.g. ${sample.figure}: ${money(sample.recomputed)})` : "") +
        (bad.length ? `; ${bad.length} do not.` : "."),
    );
  }
  if (missing.length) comments.push(`Missing from the result: ${missing.join(", ")}.`);
  else comments.push("Complete: breakdown, both top-5 product lists, churned customers and the December effect are present.");
  if (answer) comments.push(`${answer.by} confirmed: ${clip(answer.text.replace(/\s+/g, " "), 400)}`);
  const summary = decision === "approved" ? `Approved: ${comments[0]}` : `Changes requested: ${blocking.length} issue(s): ${clip(JSON.stringify(blocking), 300)}`;
  return call("submit_result", {
    summary: clip(summary, 1000),
    report_markdown: [`**Review: ${decision.replace("_", " ")}**`, "", ...comments.map((c) => `- ${c}`)].join("\n"),
    payload_type: "review.feedback.v1",
    data: { decision, comments, blocking_issues: blocking },
  });
}
