/**
 * Time formatting for the channel (day dividers, times, the exact time on hover), in the
 * browser's locale and time zone. Invalid dates never throw: they format as the raw string.
 */

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });
const fullFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "medium" });
const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric" });
const dayYearFmt = new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric", year: "numeric" });

function parse(ts: string): Date | null {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "10:32 AM". */
export function formatTime(ts: string): string {
  const d = parse(ts);
  return d ? timeFmt.format(d) : ts;
}

/** "7:31" (no AM/PM): the gutter time of a grouped row. */
export function formatShortTime(ts: string): string {
  const d = parse(ts);
  if (!d) return "";
  return timeFmt
    .formatToParts(d)
    .filter((p) => p.type !== "dayPeriod")
    .map((p) => p.value)
    .join("")
    .trim();
}

/** "Friday, November 21, 2026 at 10:32:11 AM" plus milliseconds. */
export function formatFull(ts: string): string {
  const d = parse(ts);
  if (!d) return ts;
  return `${fullFmt.format(d)} (.${String(d.getMilliseconds()).padStart(3, "0")})`;
}

/** A local calendar-day key, "2026-11-21". */
export function dayKey(ts: string): string {
  const d = parse(ts);
  if (!d) return "unknown";
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** "Today", "Yesterday", "Friday, November 21" (with the year when not this year). */
export function formatDay(ts: string, now = new Date()): string {
  const d = parse(ts);
  if (!d) return "Unknown date";
  const key = dayKey(ts);
  if (key === dayKey(now.toISOString())) return "Today";
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  if (key === dayKey(y.toISOString())) return "Yesterday";
  return d.getFullYear() === now.getFullYear() ? dayFmt.format(d) : dayYearFmt.format(d);
}

/** Milliseconds as "850 ms", "1.2 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s ? `${m} min ${s} s` : `${m} min`;
}

const monthDayFmt = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const monthDayYearFmt = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", year: "numeric" });

/**
 * When something was said, as a list of hits reads it: "Today 4:12 PM", "Yesterday 9:03 AM",
 * "Nov 24" this year, "Nov 24, 2025" before; never seconds or milliseconds (the exact time is
 * `formatFull`, for a title).
 */
export function formatWhen(ts: string, now = new Date()): string {
  const d = parse(ts);
  if (!d) return ts;
  const day = formatDay(ts, now);
  if (day === "Today" || day === "Yesterday") return `${day} ${timeFmt.format(d)}`;
  return d.getFullYear() === now.getFullYear() ? monthDayFmt.format(d) : monthDayYearFmt.format(d);
}
