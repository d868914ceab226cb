"use client";
/**
 * The shortcut sheet (docs/channels.md "Keyboard shortcuts"): one registry of every key the
 * workspace answers to, and the dialog that lists them. The shell opens it with `?` (when no
 * text field has the focus) or Mod+/ (Ctrl+/, ⌘/ on macOS) on every page.
 *
 * The provider binds those two keys itself (`?` is left alone while a text field has the focus;
 * neither opens over another dialog; Mod+/ closes the sheet again).
 *
 * The shell gives the sections that hold everywhere (`ShortcutsProvider`'s `everywhere`); each
 * page adds its own while it is mounted (`useShortcutSection`), so the sheet shows the page's
 * keys first, then the workspace's. A row's keys, and combos in its text, are platform-free
 * ("Mod+K", "Alt+↓", lib/platform.ts), shown the platform's way.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Dialog } from "./dialog";
import { formatShortcut } from "@/lib/platform";
import { Kbd, usePlatformMac } from "./keys";
import { isTextField } from "./use-hotkeys";

/** One shortcut: its keys (alternatives, each a platform-free combo) and what it does. */
export interface ShortcutRow {
  keys: readonly string[];
  does: string;
}

/** A titled group of shortcuts (a page's, or the workspace's). */
export interface ShortcutSection {
  /** Unique among the mounted sections. */
  id: string;
  title: string;
  /** When its keys work, e.g. "When no text field has the focus." */
  note?: string;
  rows: readonly ShortcutRow[];
}

interface ShortcutsApi {
  register(section: ShortcutSection): () => void;
  open(): void;
  toggle(): void;
}

const ShortcutsContext = createContext<ShortcutsApi | null>(null);

/** Holds the registry and renders the sheet; `everywhere` are the workspace's own sections, listed last. */
export function ShortcutsProvider({ everywhere, children }: { everywhere: readonly ShortcutSection[]; children: ReactNode }) {
  const [pageSections, setPageSections] = useState<ShortcutSection[]>([]);
  const [open, setOpen] = useState(false);
  const register = useCallback((section: ShortcutSection) => {
    setPageSections((all) => [...all.filter((s) => s.id !== section.id), section]);
    return () => setPageSections((all) => all.filter((s) => s !== section));
  }, []);
  const api = useMemo<ShortcutsApi>(() => ({ register, open: () => setOpen(true), toggle: () => setOpen((o) => !o) }), [register]);
  const isOpen = useRef(open);
  useEffect(() => {
    isOpen.current = open;
  }, [open]);

  // `?` outside text fields and Mod+/ anywhere open the sheet (Mod+/ closes it again); not over another dialog.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const slash = e.key === "/" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
      const question = e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(e.target);
      if (!slash && !question) return;
      if (isOpen.current) {
        if (slash) {
          e.preventDefault();
          setOpen(false);
        }
        return;
      }
      if (document.querySelector("dialog[open]")) return;
      e.preventDefault();
      setOpen(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <ShortcutsContext.Provider value={api}>
      {children}
      <ShortcutSheet open={open} onClose={() => setOpen(false)} sections={[...pageSections, ...everywhere]} />
    </ShortcutsContext.Provider>
  );
}

/** Adds `section` to the sheet while the calling component is mounted (pass a stable object). */
export function useShortcutSection(section: ShortcutSection | null): void {
  const api = useContext(ShortcutsContext);
  useEffect(() => (api && section ? api.register(section) : undefined), [api, section]);
}

/** Opens (`open`) or flips (`toggle`) the sheet; no-ops outside the workspace shell. */
export function useShortcutSheet(): Pick<ShortcutsApi, "open" | "toggle"> {
  const api = useContext(ShortcutsContext);
  return api ?? { open: () => {}, toggle: () => {} };
}

/** `text` with its combos ("then Mod+Enter to approve") written the platform's way. */
function withCombos(text: string, mac: boolean): string {
  return text.replace(/\b(?:Mod|Alt|Shift)(?:\+[^\s),]+)+/g, (combo) => formatShortcut(combo, mac));
}

/** The sheet: every section as a table of keys and what they do. */
function ShortcutSheet({ open, onClose, sections }: { open: boolean; onClose: () => void; sections: readonly ShortcutSection[] }) {
  const mac = usePlatformMac();
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" description="Single keys work when no text field has the focus." className="max-w-lg">
      <div className="scroll-slim max-h-[70vh] space-y-4 overflow-y-auto px-5 pb-5 pt-3">
        {sections.map((s) => (
          <table key={s.id} className="w-full text-[13px]">
            <caption className="pb-1 text-left text-[12px] font-semibold uppercase tracking-wider text-fg-muted">
              {s.title}
              {s.note && <span className="ml-1.5 font-normal normal-case tracking-normal">· {s.note}</span>}
            </caption>
            <tbody>
              {s.rows.map((r) => (
                <tr key={r.keys.join(" ") + r.does} className="align-top">
                  <th scope="row" className="w-[40%] py-1 pr-3 text-left font-normal">
                    <span className="inline-flex flex-wrap items-center gap-1">
                      {r.keys.map((k, i) => (
                        <span key={k} className="inline-flex items-center gap-1">
                          {i > 0 && <span className="text-fg-subtle">or</span>}
                          <Kbd combo={k} />
                        </span>
                      ))}
                    </span>
                  </th>
                  <td className="py-1 text-fg-muted">{withCombos(r.does, mac)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
    </Dialog>
  );
}
