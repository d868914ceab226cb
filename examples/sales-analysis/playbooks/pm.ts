/**
 * pm-1's playbook (CAP's example, "PMAgent"). One step per model call:
 *
 *   0. a request other than the example's (request.ts): reply to the person that the built-in
 *      model knows only the example and how to connect a real model, then decline the task
 *      (task.error CANNOT_ANSWER: the run is not done)
 *   1. DocsServer__list_documents
 *   2. DocsServer__read_file      the project spec (the listed document named like "spec")
 *   3. ask user                   "…regional breakdowns, customer segments, or overall trend insight?"  → end turn
 *   4. DataServer__query_data     quarterly overview 2016–2017                (after the person's answer)
 *   5. delegate                   to the analyst in allowed_agents, with a context_summary that states
 *                                 the person's answer and what to compute; attachments: the overview
 *                                 result, the spec excerpt, a text snippet     → end turn
 *   6. reply                      to the analyst's follow-up (reply_to = its message id) → end turn
 *   7. reply user                 the final report (payload_type chat.report.v1, which the example's
 *                                 policy holds for an admin), every figure from the subtask's result data
 *   8. submit_result              { summary, report_markdown, data }
 *
 * The person's answer sets the breakdown (region, segment or total) the delegation asks for. A
 * refused delegation or a failed subtask ends with a report of what pm-1 has (the overview).
 *
 * A follow-up (a person replied to pm-1's report or message; lib/fold/follow-up.ts) that asks
 * for another breakdown, e.g. "Now break it down by customer segment", is answered for the
 * period already agreed in the conversation (Q4 2017):
 *   F1. DataServer__query_data     the breakdown (sqlBreakdown) for that dimension
 *   F2. reply user                 its sales and profit tables, every figure from the query
 *   F3. submit_result              { summary, report_markdown, data: { dimension, periods, breakdown } }
 * Any other follow-up is declined with a message saying what the built-in model can do.
 */
import { REPORT_PAYLOAD_TYPE } from "@/server/agents/contract";
import { askedByPerson, clip, messageText, payloadOf, reviewFeedbackOf } from "@/server/agents/models/playbooks/common";
import type { InboundEntry, Transcript } from "@/server/agents/models/playbooks/transcript";
import { call, endTurn, type Action, type Playbook } from "@/server/agents/models/playbooks/types";
import { agentRef, documentText, isRecord, num, num0, str, stringLeaves, tableOf } from "@/server/agents/models/playbooks/values";
import { breakdownFrom, breakdownTables, readAnalysis, renderAnalysis, summarize, dimensionLabel, money, pct, pctChange, totalOf, type SalesAnalysis } from "./analysis";
import { EXAMPLE_REQUEST, isExampleRequest, outsideTheExample } from "./request";
import { dimensionOf, LIST_DOCUMENTS, QUERY_DATA, READ_FILE } from "./sales";
import { PERIODS, sameSql, sqlBreakdown, SQL_PM_QUARTERLY_OVERVIEW, type Dimension } from "./sql";

export const CLARIFYING_QUESTION = "To clarify, do you want regional breakdowns, customer segments, or overall trend insight?";

/** The document to read as the project spec: named or titled like a spec, else like a project, else the first. */
export function pickSpec(listing: unknown): string | undefined {
  const docs: { name: string; title: string }[] = [];
  const v = isRecord(listing) && Array.isArray(listing.documents) ? listing.documents : Array.isArray(listing) ? listing : null;
  if (v) {
    for (const d of v) {
      if (typeof d === "string") docs.push({ name: d, title: "" });
      else if (isRecord(d)) {
        const name = str(d.name) ?? str(d.path);
        if (name) docs.push({ name, title: str(d.title) ?? "" });
      }
    }
  } else {
    for (const s of stringLeaves(listing)) if (/\.(md|markdown|txt)$/i.test(s)) docs.push({ name: s, title: "" });
  }
  const by = (re: RegExp) => docs.find((d) => re.test(d.name) || re.test(d.title));
  return (by(/spec/i) ?? by(/project|brief|requirement/i) ?? docs[0])?.name;
}

/** The part of the spec that says what to analyse ("Required analyses" section, else its start). */
export function specExcerpt(text: string, max = 3000): string {
  const m = /^##\s+Required analyses[\s\S]*?(?=^##\s|(?![\s\S]))/m.exec(text);
  return clip(m ? m[0] : text, max);
}

/** The analyst to delegate to: from SystemMeta.allowed_agents (as written there). */
function analystTarget(t: Transcript): string {
  const allowed = t.meta.allowed_agents;
  return allowed.find((a) => /analyst/i.test(a)) ?? allowed[0] ?? "agent:analyst-1";
}

interface QuarterTotals {
  year: number;
  quarter: number;
  sales: number;
  profit: number;
}

function quarters(value: unknown): QuarterTotals[] {
  const tb = tableOf(value);
  if (!tb) return [];
  return tb.rows
    .map((r) => ({ year: num(r.year) ?? 0, quarter: num(r.quarter) ?? 0, sales: num0(r.sales), profit: num0(r.profit) }))
    .filter((q) => q.year > 0 && q.quarter >= 1 && q.quarter <= 4);
}

function overviewSentence(qs: QuarterTotals[]): string {
  const get = (y: number, q: number) => qs.find((x) => x.year === y && x.quarter === q);
  const cur = get(2017, 4);
  const pq = get(2017, 3);
  const py = get(2016, 4);
  const last = qs[qs.length - 1];
  if (!cur) return last ? `The latest quarter in the overview is Q${last.quarter} ${last.year}.` : "The overview query returned no quarters.";
  const parts = [`Q4 2017 sales were ${money(cur.sales)} (profit ${money(cur.profit)})`];
  if (py) parts.push(`against ${money(py.sales)} in Q4 2016 (${pct(pctChange(cur.sales, py.sales))})`);
  if (pq) parts.push(`and ${money(pq.sales)} in Q3 2017 (${pct(pctChange(cur.sales, pq.sales))})`);
  return `${parts.join(" ")}; the latest quarter in the data is Q${last.quarter} ${last.year}.`;
}

const WHAT: Record<Dimension, string> = {
  region: "by region (the four major markets: Central, East, South, West) and in total",
  segment: "by customer segment (Consumer, Corporate, Home Office) and in total",
  total: "for all orders together (the overall trend)",
};

function delegation(t: Transcript, dim: Dimension, answer: string, specPath: string | undefined, specText: string, overview: unknown, qs: QuarterTotals[]): Record<string, unknown> {
  const request = clip(t.askedText(), 300);
  const c = PERIODS.current;
  const contextSummary = [
    `The person asked: "${request}". I read the project spec${specPath ? ` (${specPath})` : ""} and asked which view they want; they answered: "${clip(answer, 300)}". So the analysis is ${WHAT[dim]}.`,
    `Research so far (DataServer, quarterly totals 2016–2017): ${overviewSentence(qs)}`,
    `Please compute, on table orders, for the last quarter ${c.label} (${c.from}..${c.to}):`,
    `(1) sales and profit ${WHAT[dim]} in ${c.label} against ${PERIODS.previous_year.label} and ${PERIODS.previous_quarter.label}, with the changes in dollars and percent;`,
    `(2) the top 5 products by increase and by decrease in sales, ${c.label} vs ${PERIODS.previous_year.label} (state the comparison basis);`,
    `(3) churned customers: those who bought in each of Q1, Q2 and Q3 2017 but not in ${c.label}, how many, and the sales they brought the year before (2016 and Q4 2016);`,
    `(4) the December effect: December 2017 against November 2017 and December 2016, and the December index per year.`,
  ].join("\n");
  const snippet = [
    `The person's answer: "${clip(answer, 300)}" → breakdown ${dim}.`,
    overviewSentence(qs),
    `Spec context: an October relaunch of the Machines range, regular customers going quiet at year end, and a December promotion whose effect is in question.`,
  ].join(" ");
  const attachments: Record<string, unknown>[] = [{ kind: "tool_call_result", server_id: "DataServer", tool: "query_data", result: overview }];
  if (specText) attachments.push({ kind: "tool_call_result", server_id: "DocsServer", tool: "read_file", result: { path: specPath, excerpt: specExcerpt(specText) } });
  attachments.push({ kind: "text_snippet", text: snippet });
  return {
    agent_id: analystTarget(t),
    title: `${c.label} sales analysis ${dimensionLabel(dim).title}`,
    context_summary: contextSummary,
    instructions: `Breakdown: ${dim}. Periods and definitions as in the attached project spec. Query table orders with DataServer query_data; keep every figure in your result's data.`,
    attachments,
  };
}

/** pm-1's answer to a question from the analyst (or anyone) while the work is delegated. */
function answerQuestion(q: InboundEntry, dim: Dimension): Action {
  const text = messageText(q);
  const about = /last year|previous year|compare|new behaviou?r|prior|2016|before/i.test(text);
  const reply = about
    ? `Yes. Compare with last year: count the customers who bought in each of Q1–Q3 2016 but not in Q4 2016 and what they had brought the year before, so we can tell whether this churn is new. Keep it next to total Q4 2017 sales, and keep the focus on the breakdown the person asked for (${dim}).`
    : `Yes, go ahead. Keep to the project spec's definitions and the breakdown the person asked for (${dim}); put every figure in your result's data.`;
  return call("reply", { to: q.event?.from.agent_id ?? "agent:analyst-1", reply_to: q.event?.id, text: reply });
}

/** The subtask's outcome after the delegation: its task.result (not a review) or failure. */
function subtaskOutcome(t: Transcript, after: number, taskId: string | undefined): InboundEntry | undefined {
  const outs = t.outcomes().filter((e) => e.index > after && !reviewFeedbackOf(e.event));
  return outs.filter((e) => e.event!.task_id === taskId).pop() ?? outs.pop();
}

function finalReport(t: Transcript, outcome: InboundEntry | undefined, failure: string | undefined, dim: Dimension, answer: string, qs: QuarterTotals[]): { report: string; summary: string; data: Record<string, unknown> } {
  const ev = outcome?.event;
  const p = payloadOf(ev);
  // The runner spreads submit_result's `data` into the task.result payload; accept it nested too.
  const nested = isRecord(p.data) ? p.data : isRecord(p.result) && isRecord(p.result.data) ? p.result.data : undefined;
  const analysis: SalesAnalysis | null = ev?.type === "task.result" ? (readAnalysis(p) ?? readAnalysis(nested)) : null;
  const data = nested ?? p;
  // Named as people read them, by their cards' display names (docs/channels.md "One name per agent").
  const analyst = ev?.from.agent_id ? t.nameOf(ev.from.agent_id) : "the analyst";
  const approvedBy = isRecord(ev?.meta) && typeof ev.meta.approved_by === "string" ? t.nameOf(ev.meta.approved_by) : undefined;
  const c = PERIODS.current;
  if (analysis) {
    const intro = [
      `You asked: "${clip(t.askedText(), 200)}" and chose: "${clip(answer, 200)}". Analysis by ${analyst}${approvedBy ? `, verified by ${approvedBy}` : ""}.`,
    ];
    return {
      report: renderAnalysis(analysis, { title: `${c.label} sales trends ${dimensionLabel(analysis.dimension).title}`, intro, takeaways: true }),
      summary: summarize(analysis),
      data: { ...analysis },
    };
  }
  if (ev?.type === "task.result") {
    const md = str(p.report_markdown) ?? str(p.summary) ?? "The analyst returned no report.";
    return {
      report: `# ${c.label} sales trends\n\nAnalysis by ${analyst}${approvedBy ? `, verified by ${approvedBy}` : ""}:\n\n${md}\n`,
      summary: str(p.summary) ?? `Report from ${analyst} delivered.`,
      data,
    };
  }
  const why = failure ?? (ev ? `${ev.type}${str(p.code) ? ` ${str(p.code)}` : ""}: ${str(p.message) ?? str(p.reason) ?? "no detail"}` : "no result");
  const rows = qs.map((q) => `| Q${q.quarter} ${q.year} | ${money(q.sales)} | ${money(q.profit)} |`);
  const report = [
    `# ${c.label} sales trends (partial)`,
    "",
    `I could not get the detailed analysis ${dimensionLabel(dim).title}: ${why}.`,
    "",
    `What I have from DataServer (table \`orders\`, quarterly totals): ${overviewSentence(qs)}`,
    "",
    ...(rows.length ? [`| Quarter | Sales | Profit |`, `| --- | ---: | ---: |`, ...rows] : []),
  ].join("\n");
  return { report: report + "\n", summary: `Partial report: the analysis was not available (${clip(why, 200)}).`, data: { overview: qs, error: why } };
}

/** pm-1's answer to any other request: tell the person who asked, then decline so the run ends as not done. */
function outside(t: Transcript): Action {
  const text = outsideTheExample(t.meta.agent_id, clip(t.askedText(), 300));
  if (askedByPerson(t)) {
    const told = t.lastCall("reply", (i) => i.to === "user");
    if (!told) return call("reply", { to: "user", text });
    if (!told.outcome) return endTurn("Waiting for my message to be sent.");
  }
  if (t.lastCall("decline")) return endTurn("Task declined.");
  return call("decline", { reason: `The built-in model knows only the example request, "${EXAMPLE_REQUEST}".` });
}

/** The breakdown a follow-up asks for ("by customer segment", "by region", "overall"), or null. */
export function followUpDimension(text: string): Dimension | null {
  const t = text.toLowerCase();
  if (/segment|customer type|consumer|corporate|home office/.test(t)) return "segment";
  if (/\bregion|\bmarket|geograph/.test(t)) return "region";
  if (/overall|\btotal\b|big picture/.test(t)) return "total";
  return null;
}

/** pm-1 on a follow-up (F1–F3 above). */
function followUp(t: Transcript): Action {
  const asked = t.askedText();
  const dim = followUpDimension(asked);
  if (!dim || !t.history.some((h) => h.kind === "result" || h.kind === "message")) return outside(t);
  const query = t.attempt(QUERY_DATA, (i) => sameSql(i.sql, sqlBreakdown(dim)));
  if (query.status === "todo" || query.status === "retry") return call(QUERY_DATA, { sql: sqlBreakdown(dim) });
  if (query.status === "pending") return endTurn("Waiting for the breakdown query.");
  // The example's conversation always agrees on its last quarter (the report above names it).
  const period = PERIODS.current.label;
  const table = query.status === "ok" ? tableOf(query.value) : null;
  const breakdown = table ? breakdownFrom(table) : [];
  const label = dimensionLabel(dim);
  const text = breakdown.length
    ? [
        `Here is ${period} ${label.title}, the period of the report above, against ${PERIODS.previous_year.label} and ${PERIODS.previous_quarter.label} (DataServer, table \`orders\`):`,
        "",
        ...breakdownTables({ periods: PERIODS, dimension: dim, breakdown }),
      ].join("\n")
    : `I could not get ${period} ${label.title}: ${query.status === "failed" ? query.error : "the query returned no rows"}.`;
  const sent = t.lastCall("reply", (i) => i.to === "user");
  if (!sent) return call("reply", { to: "user", text });
  if (!sent.outcome) return endTurn("Waiting for my message to be sent.");
  if (t.lastSubmitIndex() >= 0) return endTurn("Follow-up answered.");
  const total = totalOf(breakdown);
  return call("submit_result", {
    summary: total ? `${period} ${label.title}: total sales ${money(total.sales.current)} (${pct(total.sales_pct_yoy)} on ${PERIODS.previous_year.label}).` : `${period} ${label.title} was not available.`,
    report_markdown: text,
    data: { dimension: dim, periods: PERIODS, breakdown },
  });
}

export const pm: Playbook = (t) => {
  if (t.ownTaskStopped()) return endTurn("My task was stopped; nothing more to do.");
  if (t.follows()) return followUp(t);
  if (!isExampleRequest(t.askedText())) return outside(t);

  // 1–2. Read the project documents.
  const list = t.attempt(LIST_DOCUMENTS);
  if (list.status === "todo" || list.status === "retry") return call(LIST_DOCUMENTS, {});
  if (list.status === "pending") return endTurn("Waiting for the document list.");
  const specPath = list.status === "ok" ? pickSpec(list.value) : undefined;
  let specText = "";
  if (specPath) {
    const read = t.attempt(READ_FILE, (i) => i.path === specPath);
    if (read.status === "todo" || read.status === "retry") return call(READ_FILE, { path: specPath });
    if (read.status === "pending") return endTurn("Waiting for the project spec.");
    if (read.status === "ok") specText = documentText(read.value);
  }

  // 3. Ask the person what view they want.
  const ask = t.lastCall("ask", (i) => i.to === "user");
  // A question left unanswered when the task stopped closed with it: a retry asks again.
  const closed = ask !== undefined && ask.index < t.retryIndex() && !t.answerTo(ask);
  if (!ask || closed) {
    const read = specPath ? `I read the project spec (${specPath}). ` : "";
    return call("ask", { to: "user", question: `${read}${CLARIFYING_QUESTION}` });
  }
  const askFailed = ask.outcome?.ok === false;
  const answerEntry = askFailed ? undefined : t.answerTo(ask);
  const answer = answerEntry ? messageText(answerEntry) : askFailed ? "no answer (my question could not be sent)" : "";
  const dim = dimensionOf(answer);

  // Questions for pm-1 (the analyst's follow-up) are answered first.
  const question = t.pendingQuestions()[0];
  if (question) return answerQuestion(question, dim);
  if (!answerEntry && !askFailed) return endTurn("Waiting for the person's answer to my question.");

  // 4. Overview query.
  const overview = t.attempt(QUERY_DATA, (i) => sameSql(i.sql, SQL_PM_QUARTERLY_OVERVIEW));
  if (overview.status === "todo" || overview.status === "retry") return call(QUERY_DATA, { sql: SQL_PM_QUARTERLY_OVERVIEW });
  if (overview.status === "pending") return endTurn("Waiting for the overview query.");
  const overviewValue = overview.status === "ok" ? overview.value : { error: overview.error };
  const qs = overview.status === "ok" ? quarters(overview.value) : [];

  // 5. Delegate.
  const del = t.lastCall("delegate");
  if (!del) return call("delegate", delegation(t, dim, answer, specPath, specText, overviewValue, qs));
  if (!del.outcome) return endTurn("Waiting for the delegation to be acknowledged.");
  const refused = del.outcome.ok ? undefined : `the delegation to ${t.nameOf(agentRef(String(del.input.agent_id)))} was refused (${clip(del.outcome.error ?? "error", 300)})`;
  const subtaskId = isRecord(del.outcome.value) ? str(del.outcome.value.task_id) : undefined;
  const outcome = refused ? undefined : subtaskOutcome(t, del.index, subtaskId);
  if (!refused && !outcome) return endTurn(`Delegated "${String(del.input.title)}" to ${t.nameOf(agentRef(String(del.input.agent_id)))}; waiting for its result.`);

  // 7–8. Report to the person, then finish.
  const after = outcome?.index ?? del.index;
  const { report, summary, data } = finalReport(t, outcome, refused, dim, answer, qs);
  const sent = t.calls.find((c) => c.name === "reply" && c.input.to === "user" && c.index > after);
  if (!sent) return call("reply", { to: "user", text: report, payload_type: REPORT_PAYLOAD_TYPE });
  if (t.lastSubmitIndex() < 0) return call("submit_result", { summary, report_markdown: report, data });
  return endTurn("Report delivered and task submitted.");
};
