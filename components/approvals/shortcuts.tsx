"use client";
/**
 * The inbox's keys for people: the hints along the bottom of the page and its section of the
 * shortcut sheet that `?` opens (components/ui/shortcuts.tsx; the keys themselves are bound in
 * ./use-inbox-keys.ts). The deciding keys (a, r, e) are listed only for a person who may decide
 * the selected approval (./key-hints.ts).
 */
import type { ShortcutSection } from "@/components/ui/shortcuts";
import type { DecidingKey } from "./key-hints";

/** The approvals page's section of the shortcut sheet, for a person who may decide the selected approval. */
export const APPROVALS_KEYS: ShortcutSection = {
  id: "approvals",
  title: "Approvals",
  rows: [
    { keys: ["j", "↓"], does: "Next approval" },
    { keys: ["k", "↑"], does: "Previous approval" },
    { keys: ["a"], does: "Approve" },
    { keys: ["r"], does: "Reject (type a comment, Enter to confirm)" },
    { keys: ["e"], does: "Edit the arguments, then Mod+Enter to approve" },
    { keys: ["Enter"], does: "Open the approval in its channel" },
    { keys: ["/"], does: "Filter by text" },
    { keys: ["Esc"], does: "Close a form or leave the filter" },
  ],
};

/** The same section without the deciding keys, for a person who may not decide the selected approval. */
export const APPROVALS_VIEW_KEYS: ShortcutSection = {
  ...APPROVALS_KEYS,
  rows: APPROVALS_KEYS.rows.filter((r) => !r.keys.some((k) => k === "a" || k === "r" || k === "e")),
};

function Key({ k }: { k: string }) {
  return <kbd className="inline-flex h-[18px] min-w-[18px] items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[10.5px] font-semibold text-fg">{k}</kbd>;
}

/** The footer's key hints (wide screens); `deciding` are the deciding keys the person may use on the selected approval (./key-hints.ts). */
export function KeyHints({ deciding }: { deciding: readonly DecidingKey[] }) {
  return (
    <footer className="hidden shrink-0 items-center gap-x-3 gap-y-1 border-t border-line bg-sunken/60 px-5 py-1.5 text-[11.5px] text-fg-muted md:flex md:flex-wrap">
      <span>
        <Key k="j" /> <Key k="k" /> move
      </span>
      {deciding.map((d) => (
        <span key={d.key}>
          <Key k={d.key} /> {d.does}
        </span>
      ))}
      <span>
        <Key k="↵" /> open in channel
      </span>
      <span>
        <Key k="/" /> filter
      </span>
      <span>
        <Key k="?" /> all keys
      </span>
    </footer>
  );
}
