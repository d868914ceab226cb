"use client";
/**
 * The inbox's keys for people: the hints along the bottom of the page and the list the `?` key
 * opens (the keys themselves are bound in ./use-inbox-keys.ts).
 */
import { Dialog } from "@/components/ui/dialog";
import type { InboxTab } from "./model";

const KEYS: [string, string][] = [
  ["j / ↓", "Next approval"],
  ["k / ↑", "Previous approval"],
  ["a", "Approve"],
  ["r", "Reject (type a comment, Enter to confirm)"],
  ["e", "Edit the arguments, then Ctrl/⌘+Enter to approve"],
  ["Enter", "Open the approval in its channel"],
  ["/", "Filter by text"],
  ["Esc", "Close a form or leave the filter"],
  ["?", "This list"],
];

function Key({ k }: { k: string }) {
  return <kbd className="inline-flex h-[18px] min-w-[18px] items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[10.5px] font-semibold text-fg">{k}</kbd>;
}

/** The footer's key hints (wide screens); the deciding keys only on the pending tab. */
export function KeyHints({ tab }: { tab: InboxTab }) {
  return (
    <footer className="hidden shrink-0 items-center gap-x-3 gap-y-1 border-t border-line bg-sunken/60 px-5 py-1.5 text-[11.5px] text-fg-muted md:flex md:flex-wrap">
      <span>
        <Key k="j" /> <Key k="k" /> move
      </span>
      {tab === "pending" && (
        <>
          <span>
            <Key k="a" /> approve
          </span>
          <span>
            <Key k="r" /> reject
          </span>
          <span>
            <Key k="e" /> edit arguments
          </span>
        </>
      )}
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

/** Every key of the inbox, in a dialog. */
export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" description="On the approvals page, when no field has focus." className="max-w-md">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 px-5 pb-5 pt-3 text-[13px]">
        {KEYS.map(([k, v]) => (
          <div key={k} className="contents">
            <dt>
              <kbd className="rounded border border-line-strong bg-sunken px-1.5 py-0.5 font-sans text-[11.5px] font-semibold">{k}</kbd>
            </dt>
            <dd className="text-fg-muted">{v}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
