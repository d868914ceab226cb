/**
 * A deterministic extractive summarizer (no model): keeps a document's headings and picks its most
 * informative sentences. Used by DocsServer's and SummaryServer's `create_summary` tools (CAP
 * "MCP Integration": "document reads, summaries input directly into messages").
 *
 * Same input → same output, byte for byte: no randomness, no locale-dependent formatting, ties
 * broken by position.
 */

/** A heading of the source text; `level` 1–6 as in markdown `#`…`######`. */
export interface SummaryHeading {
  level: number;
  text: string;
}

/** A sentence chosen for the summary; `section` is the heading it sits under (null before any). */
export interface SummarySentence {
  text: string;
  section: string | null;
  /** Position of the sentence in the source, 0-based. */
  index: number;
  /** Informativeness score (higher is more informative); rounded to 4 decimals. */
  score: number;
}

/** The result of {@link summarizeText}. */
export interface TextSummary {
  /** The first level-1 heading, else the first heading, else null. */
  title: string | null;
  headings: SummaryHeading[];
  /** Chosen sentences in source order. */
  sentences: SummarySentence[];
  /** Human-readable markdown: title, the sections covered, the chosen sentences as bullets. */
  summary: string;
  stats: { sentences_in_source: number; words_in_source: number; sentences_selected: number };
}

/** Default and upper bound of `max_sentences`. */
export const DEFAULT_MAX_SENTENCES = 5;
export const MAX_SENTENCES_LIMIT = 50;

const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below " +
    "between both but by can could did do does doing down during each either else etc few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its itself just let " +
    "like may me might more most must my myself no nor not now of off on once one only or other our ours " +
    "ourselves out over own per same shall she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up upon us very via was we were " +
    "what when where which while who whom whose why will with within without would yet you your yours " +
    "yourself yourselves e.g i.e eg ie vs"
  ).split(/\s+/),
);

const ABBREVIATIONS = ["e.g.", "i.e.", "etc.", "vs.", "approx.", "no.", "fig.", "mr.", "ms.", "dr.", "inc.", "u.s."];

interface Unit {
  text: string;
  section: string | null;
  sectionStart: boolean;
}

/** Removes inline markdown (emphasis, code ticks, links, images) and collapses spaces. */
export function stripInlineMarkdown(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

/** Splits prose into sentences at `.`, `!` or `?` followed by a space and a capital, digit or quote. */
export function splitSentences(text: string): string[] {
  let s = text;
  const masks: string[] = [];
  for (const abbr of ABBREVIATIONS) {
    const re = new RegExp(`\\b${abbr.replace(/\./g, "\\.")}`, "gi");
    s = s.replace(re, (m) => {
      masks.push(m);
      return `\uE000${masks.length - 1}\uE001`;
    });
  }
  const parts = s.split(/(?<=[.!?])\s+(?=["'([]?[A-Z0-9\uE000])/);
  return parts
    .map((p) => p.replace(/\uE000(\d+)\uE001/g, (_, i) => masks[Number(i)]).trim())
    .filter((p) => p.length > 0);
}

/** Lower-case content words of `s` (letters/digits, stopwords and 1–2 letter words removed). */
export function contentWords(s: string): string[] {
  const words = s.toLowerCase().match(/[a-z0-9][a-z0-9'’-]*/g) ?? [];
  return words.map((w) => w.replace(/['’-]+$/, "")).filter((w) => w.length > 2 && !STOPWORDS.has(w));
}

/** A list fragment as a sentence: capital first letter, a trailing `;` or `,` becomes a full stop. */
function tidy(s: string): string {
  const t = s.replace(/[;,]\s*(and|or)?\s*$/i, ".");
  return /^[a-z]/.test(t) ? t[0].toUpperCase() + t.slice(1) : t;
}

/** Parses markdown into headings and sentence units (list items and table rows are units too). */
function parse(text: string): { headings: SummaryHeading[]; units: Unit[] } {
  const headings: SummaryHeading[] = [];
  const units: Unit[] = [];
  let section: string | null = null;
  let sectionStart = true;
  let paragraph: string[] = [];
  let inFence = false;

  const flush = () => {
    if (paragraph.length === 0) return;
    const prose = stripInlineMarkdown(paragraph.join(" "));
    paragraph = [];
    for (const sentence of splitSentences(prose)) {
      units.push({ text: tidy(sentence), section, sectionStart });
      sectionStart = false;
    }
  };

  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.trimEnd();
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const h = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      const t = stripInlineMarkdown(h[2]);
      headings.push({ level: h[1].length, text: t });
      section = t;
      sectionStart = true;
      continue;
    }
    if (line.trim() === "" || /^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      continue;
    }
    if (/^\s*\|/.test(line)) {
      // Table rows: separator rows are skipped, others become one unit of their cells.
      flush();
      if (/^\s*\|?[\s:|-]+\|?\s*$/.test(line)) continue;
      const cells = line
        .split("|")
        .map((c) => stripInlineMarkdown(c))
        .filter((c) => c.length > 0);
      if (cells.length > 0) units.push({ text: cells.join(" — "), section, sectionStart: false });
      continue;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      paragraph.push(item[1]);
      continue;
    }
    if (/^\s*>/.test(line)) {
      paragraph.push(line.replace(/^\s*>\s?/, ""));
      continue;
    }
    paragraph.push(line.trim());
  }
  flush();
  return { headings, units };
}

/** Jaccard similarity of two word sets. */
function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/**
 * Summarizes `text` (markdown or plain prose) extractively.
 *
 * Scoring: each sentence scores the mean document frequency of its content words (words that
 * recur across the document are what it is about), ×1.5 per share of words shared with the headings,
 * ×1.15 for the first sentence of a section, ×0.5 under 5 words, ×0.85 over 40 words, ×0.6 when it
 * ends in a colon (it introduces a list). Sentences are
 * picked best first, skipping near-duplicates (Jaccard ≥ 0.6 with one already picked), then put
 * back in source order.
 *
 * Input: `text` (any string; an empty one gives an empty summary), `maxSentences` 1–50 (default 5;
 * out-of-range values are clamped). Output: see {@link TextSummary}. Never throws.
 */
export function summarizeText(text: string, maxSentences: number = DEFAULT_MAX_SENTENCES): TextSummary {
  const max = Math.max(1, Math.min(MAX_SENTENCES_LIMIT, Math.floor(maxSentences) || DEFAULT_MAX_SENTENCES));
  const { headings, units } = parse(text);
  const title = (headings.find((h) => h.level === 1) ?? headings[0])?.text ?? null;

  const wordsPer = units.map((u) => contentWords(u.text));
  const df = new Map<string, number>();
  for (const ws of wordsPer) for (const w of new Set(ws)) df.set(w, (df.get(w) ?? 0) + 1);
  const headingWords = new Set(headings.flatMap((h) => contentWords(h.text)));
  const totalWords = units.reduce((n, u) => n + u.text.split(/\s+/).filter(Boolean).length, 0);

  const scored = units.map((u, index) => {
    const ws = wordsPer[index];
    const uniq = new Set(ws);
    let score = 0;
    if (uniq.size > 0) {
      let sum = 0;
      let inHeadings = 0;
      for (const w of uniq) {
        sum += df.get(w) ?? 0;
        if (headingWords.has(w)) inHeadings++;
      }
      score = sum / uniq.size;
      score *= 1 + 0.5 * (inHeadings / uniq.size);
      const n = u.text.split(/\s+/).length;
      if (u.sectionStart) score *= 1.15;
      if (n < 5) score *= 0.5;
      if (n > 40) score *= 0.85;
      if (/:\s*$/.test(u.text)) score *= 0.6; // an introduction to a list says little by itself
    }
    return { unit: u, index, score, words: uniq };
  });

  const ranked = [...scored].filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  const picked: typeof scored = [];
  for (const s of ranked) {
    if (picked.length >= max) break;
    if (picked.some((p) => jaccard(p.words, s.words) >= 0.6)) continue;
    picked.push(s);
  }
  picked.sort((a, b) => a.index - b.index);

  const sentences: SummarySentence[] = picked.map((p) => ({
    text: p.unit.text,
    section: p.unit.section,
    index: p.index,
    score: round4(p.score),
  }));

  const lines: string[] = [];
  if (title) lines.push(`# ${title}`, "");
  const covered = headings.filter((h) => h.text !== title && h.level <= 3).map((h) => h.text);
  if (covered.length > 0) lines.push(`Sections: ${covered.join(" · ")}`, "");
  if (sentences.length > 0) {
    lines.push("Key points:");
    for (const s of sentences) lines.push(`- ${s.text}${s.section && s.section !== title ? ` (${s.section})` : ""}`);
  } else {
    lines.push("(no prose to summarize)");
  }

  return {
    title,
    headings,
    sentences,
    summary: lines.join("\n"),
    stats: { sentences_in_source: units.length, words_in_source: totalWords, sentences_selected: sentences.length },
  };
}

// ---------------------------------------------------------------------------------------------
// Structured summaries (SummaryServer)
// ---------------------------------------------------------------------------------------------

/** A cell of a summary table. */
export type Cell = string | number | boolean | null;

/** One section of a structured summary; any of `text`, `bullets`, `table`, `facts` may be given. */
export interface SummarySection {
  heading: string;
  text?: string;
  bullets?: string[];
  table?: { columns: string[]; rows: Cell[][] };
  facts?: Record<string, Cell>;
}

/** Limits applied when rendering a structured summary. */
export const STRUCTURED_LIMITS = { bullets: 12, tableRows: 25 } as const;

/**
 * Formats a number for people, deterministically (no locale): thousands separated by commas,
 * at most 2 decimals (`1234567.891` → `1,234,567.89`, `-0.5` → `-0.5`). Non-finite values → `String(n)`.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(n * 100) / 100;
  const neg = rounded < 0;
  const [int, frac] = Math.abs(rounded).toFixed(2).split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const f = frac.replace(/0+$/, "");
  return `${neg ? "-" : ""}${grouped}${f ? "." + f : ""}`;
}

function cellText(c: Cell): string {
  if (c === null) return "—";
  if (typeof c === "number") return formatNumber(c);
  return String(c).replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

/**
 * Renders a structured summary `{ title, sections }` as markdown a person can read: `# title`, an
 * overview line naming the sections, then per section a `## heading` with its text (summarized
 * extractively to `maxSentencesPerSection` when longer), its facts as `- **key**: value`, its
 * bullets (at most 12, then "… and N more") and its table (at most 25 rows, then a note).
 *
 * Input: `title` (non-empty), `sections` (at least one), `maxSentencesPerSection` 1–50 (default 3).
 * Output: `{ summary, sections: [{ heading, sentences }] }`. Deterministic; never throws.
 */
export function renderStructuredSummary(
  title: string,
  sections: SummarySection[],
  maxSentencesPerSection = 3,
): { summary: string; sections: { heading: string; sentences: number }[] } {
  const out: string[] = [`# ${title.trim()}`, ""];
  out.push(`${sections.length} section${sections.length === 1 ? "" : "s"}: ${sections.map((s) => s.heading).join(" · ")}`, "");
  const meta: { heading: string; sentences: number }[] = [];
  for (const s of sections) {
    out.push(`## ${s.heading.trim()}`, "");
    let sentences = 0;
    if (s.text && s.text.trim()) {
      const all = splitSentences(stripInlineMarkdown(s.text));
      const chosen = all.length > maxSentencesPerSection ? summarizeText(s.text, maxSentencesPerSection).sentences.map((x) => x.text) : all;
      sentences = chosen.length;
      out.push(chosen.join(" "), "");
    }
    if (s.facts && Object.keys(s.facts).length > 0) {
      for (const [k, v] of Object.entries(s.facts)) out.push(`- **${k}**: ${cellText(v)}`);
      out.push("");
    }
    if (s.bullets && s.bullets.length > 0) {
      for (const b of s.bullets.slice(0, STRUCTURED_LIMITS.bullets)) out.push(`- ${stripInlineMarkdown(b)}`);
      if (s.bullets.length > STRUCTURED_LIMITS.bullets) out.push(`- … and ${s.bullets.length - STRUCTURED_LIMITS.bullets} more`);
      out.push("");
    }
    if (s.table && s.table.columns.length > 0) {
      const cols = s.table.columns;
      out.push(`| ${cols.map((c) => cellText(c)).join(" | ")} |`);
      out.push(`| ${cols.map(() => "---").join(" | ")} |`);
      for (const row of s.table.rows.slice(0, STRUCTURED_LIMITS.tableRows)) {
        const cells = cols.map((_, i) => cellText(row[i] ?? null));
        out.push(`| ${cells.join(" | ")} |`);
      }
      if (s.table.rows.length > STRUCTURED_LIMITS.tableRows) {
        out.push("", `(${s.table.rows.length - STRUCTURED_LIMITS.tableRows} more rows not shown)`);
      }
      out.push("");
    }
    meta.push({ heading: s.heading, sentences });
  }
  return { summary: out.join("\n").trimEnd(), sections: meta };
}
