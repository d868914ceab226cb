/**
 * Small inline labels: `Chip` for ids and capabilities, `StatusBadge` for coloured states.
 */
import type { ReactNode } from "react";

/** A monospace chip for ids and capabilities. */
export function Chip({ children, title, className = "" }: { children: ReactNode; title?: string; className?: string }) {
  return (
    <span
      title={title}
      className={`inline-flex max-w-full items-center truncate rounded border border-line bg-sunken px-1.5 py-px font-mono text-[11px] leading-4 text-fg-muted ${className}`}
    >
      {children}
    </span>
  );
}

/** Colour of a StatusBadge. */
export type Tone = "neutral" | "info" | "success" | "warning" | "danger" | "agent" | "accent";

const TONES: Record<Tone, string> = {
  neutral: "bg-fg-muted/12 text-fg-muted ring-fg-muted/20",
  info: "bg-info/12 text-info ring-info/25",
  success: "bg-success/12 text-success ring-success/25",
  warning: "bg-warning/12 text-warning ring-warning/25",
  danger: "bg-danger/12 text-danger ring-danger/25",
  agent: "bg-agent/12 text-agent ring-agent/25",
  accent: "bg-accent/12 text-accent ring-accent/25",
};

/**
 * A coloured pill for a state (task states, tool outcomes); `label` is what assistive tech reads
 * instead of the pill's content ("State: Running"), as screen-reader-only text: a plain span
 * may not carry an aria-label (axe aria-prohibited-attr).
 */
export function StatusBadge({ tone, children, label }: { tone: Tone; children: ReactNode; label?: string }) {
  return (
    <span className={`inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-px text-[11px] font-semibold leading-4 ring-1 ring-inset ${TONES[tone]}`}>
      {label ? (
        <>
          <span className="sr-only">{label}</span>
          <span aria-hidden="true" className="contents">
            {children}
          </span>
        </>
      ) : (
        children
      )}
    </span>
  );
}
