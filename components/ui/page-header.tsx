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

/** The page's title in its header: an icon, the h1, and a line of detail beside it (truncated when narrow). */
export function PageTitle({ icon, title, detail }: { icon: ReactNode; title: string; detail?: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-1 items-center gap-3">
      <h1 className="flex items-center gap-1.5 text-[15px] font-bold">
        {icon}
        {title}
      </h1>
      {detail ? <span className="truncate text-[12.5px] font-medium text-fg-muted">{detail}</span> : null}
    </div>
  );
}
