"use client";
/**
 * `WorkspaceShell`: the Slack-like frame around every page: the skip links (./skip-links.tsx),
 * the channel sidebar (a drawer below 768 px), the main pane, Ctrl/Cmd+K for the channel
 * switcher, the workspace's keys (./workspace-keys.ts) and the shortcut sheet
 * (components/ui/shortcuts.tsx), and the new-channel and settings dialogs; above every page, the
 * warning while the policy file is invalid.
 */
import { usePathname } from "next/navigation";
import { Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { PolicyBanner } from "@/components/approvals/policy-banner";
import { ForYouNotifier, TitleCount } from "@/components/inbox/attention";
import { Announcer } from "@/components/ui/announce";
import { ShortcutsProvider } from "@/components/ui/shortcuts";
import { ChannelSwitcher } from "./channel-switcher";
import { NewChannelDialog } from "./new-channel-dialog";
import { SettingsDialog } from "./settings-dialog";
import { Sidebar } from "./sidebar";
import { CONTENT_ID, SkipLinks } from "./skip-links";
import { WorkspaceContext, type WorkspaceActions } from "./workspace-context";
import { EVERYWHERE, useWorkspaceKeys } from "./workspace-keys";

const EVERYWHERE_SECTIONS = [EVERYWHERE];

type Modal = "switcher" | "new-channel" | "settings" | null;

/** The thread id in `/c/<thread_id>`, if the path is a channel. */
export function threadIdFromPath(path: string | null): string | undefined {
  const m = path?.match(/^\/c\/([^/?#]+)/);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** Sidebar + main pane + dialogs + Ctrl/Cmd+K. */
export function WorkspaceShell({ children }: { children: ReactNode }) {
  const activeId = threadIdFromPath(usePathname());
  const [drawer, setDrawer] = useState(false);
  const [modal, setModal] = useState<Modal>(null);
  const close = useCallback(() => setModal(null), []);
  const closeDrawer = useCallback(() => setDrawer(false), []);
  const aside = useRef<HTMLElement>(null);
  useWorkspaceKeys(activeId);

  // Move focus into the drawer when it opens on a phone.
  useEffect(() => {
    if (drawer) aside.current?.querySelector<HTMLElement>("a[aria-current], nav a, button")?.focus();
  }, [drawer]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setDrawer(false);
        setModal((m) => (m === "switcher" ? null : "switcher"));
      } else if (e.key === "Escape") {
        setDrawer(false);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const actions = useMemo<WorkspaceActions>(
    () => ({
      openDrawer: () => setDrawer(true),
      openSwitcher: () => {
        setDrawer(false);
        setModal("switcher");
      },
      openNewChannel: () => {
        setDrawer(false);
        setModal("new-channel");
      },
      openSettings: () => {
        setDrawer(false);
        setModal("settings");
      },
    }),
    [],
  );

  return (
    <WorkspaceContext.Provider value={actions}>
      <ShortcutsProvider everywhere={EVERYWHERE_SECTIONS}>
      <SkipLinks inChannel={activeId !== undefined} />
      <div className="flex h-dvh overflow-clip">
        {drawer && (
          <div className="fixed inset-0 z-30 animate-fade-in bg-black/40 md:hidden" aria-hidden="true" onClick={closeDrawer} />
        )}
        <aside
          ref={aside}
          aria-label="Workspace"
          className={`z-40 w-[264px] shrink-0 border-r border-line max-md:fixed max-md:inset-y-0 max-md:left-0 max-md:w-[min(300px,85vw)] max-md:shadow-pop max-md:transition-[transform,visibility] max-md:duration-200 ${
            drawer ? "max-md:visible max-md:translate-x-0" : "max-md:invisible max-md:-translate-x-full"
          }`}
        >
          {/* Its own boundary: the server's HTML draws it, and the browser hydrates it after the
              page's own content (React's selective hydration), so a channel's composer answers
              sooner (docs/benchmarks.md "bench/composer.ts"). A click in it hydrates it first. */}
          <Suspense fallback={null}>
            <Sidebar activeId={activeId} onNavigate={closeDrawer} onClose={closeDrawer} />
          </Suspense>
        </aside>
        <main id={CONTENT_ID} tabIndex={-1} className="flex min-w-0 flex-1 flex-col bg-canvas focus:outline-none">
          <PolicyBanner />
          <div className="min-h-0 flex-1">{children}</div>
        </main>
      </div>
      <ChannelSwitcher open={modal === "switcher"} onClose={close} activeId={activeId} />
      <NewChannelDialog open={modal === "new-channel"} onClose={close} />
      <SettingsDialog open={modal === "settings"} onClose={close} />
      <TitleCount />
      <ForYouNotifier />
      <Announcer />
      </ShortcutsProvider>
    </WorkspaceContext.Provider>
  );
}
