"use client";
/**
 * `Disclosure`: a button with `aria-expanded` that shows or hides its panel. Used for payload
 * JSON, tool arguments and results.
 */
import { useId, useState, type ReactNode } from "react";
import { ChevronRightIcon } from "./icons";

/** A collapsible section behind a button with aria-expanded. */
export function Disclosure({
  label,
  children,
  defaultOpen = false,
  className = "",
  aside,
}: {
  label: ReactNode;
  /** Shown on the button's line, after it (ids, durations); a function gets whether it is open. */
  aside?: ReactNode | ((open: boolean) => ReactNode);
  children: ReactNode;
  defaultOpen?: boolean;
  className?: string;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const id = useId();
  return (
    <div className={className}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-0.5">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
        className="-ml-1 inline-flex items-center gap-1 rounded px-1 py-0.5 text-xs font-medium text-fg-muted hover:bg-hover hover:text-fg"
      >
        <ChevronRightIcon size={12} className={`transition-transform ${open ? "rotate-90" : ""}`} />
        {label}
      </button>
      {typeof aside === "function" ? aside(open) : aside}
      </div>
      {open && (
        <div id={id} className="mt-1">
          {children}
        </div>
      )}
    </div>
  );
}
