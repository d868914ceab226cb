/**
 * `PageHeader`: the bar across the top of a page (/approvals, /agents, /runs/…), 48 px high
 * with a rule below, its children in one row. Pages put the drawer toggle first and the theme
 * toggle last (components/workspace), their title and actions between.
 */
import type { ReactNode } from "react";

/** The page's top bar (see the file comment). */
export function PageHeader({ children }: { children: ReactNode }) {
  return <header className="flex h-12 shrink-0 items-center gap-2 border-b border-line bg-canvas px-2 sm:px-4">{children}</header>;
}
