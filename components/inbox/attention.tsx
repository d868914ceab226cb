"use client";
/**
 * What reads the For you inbox outside its page (docs/channels.md "For you"), mounted once in
 * the workspace shell:
 *
 * - `TitleCount`: the number of open items before every page's title, "(2) #sales · Clutch".
 *   Pages set their own titles (metadata, `document.title`); this keeps the count in front of
 *   whatever they set, watching the document's <title>.
 * - `ForYouNotifier`: a browser notification (the Notification API) for each new question,
 *   approval, mention or direct message, once the person enabled them (`useNotifyChoice`); a
 *   click focuses the tab and opens the item in context. Items already there when the page loads
 *   are not announced; nothing is announced while the tab is in front. It names the sender and
 *   the channel as a person reads them: "Project Manager asks you in #sales", "… in the direct
 *   message with Project Manager", and a direct message by its sender, "Ada Lovelace" over the
 *   text (./wording.ts `notificationFor`; docs/channels.md "One name per agent"). Each new
 *   message of a DM is a new item (its key names the message), so each is announced.
 * - `NotifyOffer`: the in-app offer, "Get notified when someone needs you?" Enable / Not now,
 *   shown until the person chooses (kept in localStorage under NOTIFY_KEY). Only Enable asks the
 *   browser for permission, so a first visit never meets the browser's prompt.
 */
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useInbox } from "@/components/live/inbox";
import { useNameOf } from "@/components/events/use-sender-name";
import { useChannelNames } from "@/components/workspace/thread-title";
import { useLocalValue } from "@/components/prefs/local-store";
import { BellIcon } from "@/components/ui/icons";
import { notificationFor } from "./wording";

/** localStorage key of the person's choice: "on" (notify), "off" (not now, or the browser said no). */
export const NOTIFY_KEY = "clutch:notify";

/** "(2) " for 2 open items, "(99+) " past 99, "" for none. */
export function countPrefix(open: number): string {
  return open > 0 ? `(${open > 99 ? "99+" : open}) ` : "";
}

/** `title` with its count replaced by `open`'s (`countPrefix`). */
export function titleWithCount(title: string, open: number): string {
  return countPrefix(open) + title.replace(/^\(\d+\+?\) /, "");
}

/** Keeps the For you count in front of the tab's title (see the file comment). */
export function TitleCount() {
  const open = useInbox().data?.open ?? 0;
  useEffect(() => {
    const apply = () => {
      const want = titleWithCount(document.title, open);
      if (document.title !== want) document.title = want;
    };
    apply();
    const watch = new MutationObserver(apply);
    watch.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      watch.disconnect();
      document.title = titleWithCount(document.title, 0);
    };
  }, [open]);
  return null;
}

const supported = () => typeof window !== "undefined" && "Notification" in window;

/** The browser's permission for notifications, or "unsupported"; follows changes made while the page is open. */
function usePermission(): NotificationPermission | "unsupported" {
  return useSyncExternalStore(
    (notify) => {
      const t = setInterval(notify, 2_000);
      return () => clearInterval(t);
    },
    () => (supported() ? Notification.permission : "unsupported"),
    () => "unsupported",
  );
}

/** The person's choice about notifications: null until they chose; `enable()` asks the browser once. */
export function useNotifyChoice() {
  const [choice, setChoice] = useLocalValue<"on" | "off" | null>(NOTIFY_KEY, null);
  const permission = usePermission();
  const enable = async () => {
    if (!supported()) return setChoice("off");
    const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    setChoice(answer === "granted" ? "on" : "off");
  };
  return { choice, permission, enable, decline: () => setChoice("off"), enabled: choice === "on" && permission === "granted" };
}

/** Announces new open items as browser notifications, when enabled (see the file comment). */
export function ForYouNotifier() {
  const { data } = useInbox();
  const { enabled } = useNotifyChoice();
  const router = useRouter();
  const nameOf = useNameOf();
  const { place, other } = useChannelNames();
  const known = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!data) return;
    const open = data.items.filter((i) => !i.done);
    if (known.current === null) {
      known.current = new Set(open.map((i) => i.key));
      return;
    }
    const fresh = open.filter((i) => !known.current!.has(i.key));
    for (const i of open) known.current.add(i.key);
    if (!enabled || !fresh.length || (document.visibilityState === "visible" && document.hasFocus())) return;
    for (const item of fresh.slice(0, 3)) {
      const { title, body } = notificationFor(item, { nameOf, place, other });
      try {
        const n = new Notification(title, { body, tag: item.key });
        n.onclick = () => {
          window.focus();
          router.push(item.href);
          n.close();
        };
      } catch {
        // Some browsers only notify from a service worker: the inbox still shows the item.
      }
    }
  }, [data, enabled, router, nameOf, place, other]);
  return null;
}

/** The in-app offer to notify (see the file comment); nothing once the person chose or the browser cannot. */
export function NotifyOffer({ className = "" }: { className?: string }) {
  const { choice, permission, enable, decline } = useNotifyChoice();
  const [asking, setAsking] = useState(false);
  if (choice !== null || permission === "unsupported" || permission === "denied") return null;
  return (
    <section aria-label="Notifications" className={`rounded-lg border border-line bg-surface p-2.5 text-[13px] text-fg shadow-sm ${className}`}>
      <p className="flex items-start gap-1.5 font-medium">
        <BellIcon size={14} className="mt-0.5 shrink-0 text-accent" />
        Get notified when someone needs you?
      </p>
      <div className="mt-2 flex gap-1.5 pl-5">
        <button
          type="button"
          disabled={asking}
          onClick={async () => {
            setAsking(true);
            await enable();
            setAsking(false);
          }}
          className="inline-flex h-7 items-center rounded-md bg-accent px-2.5 text-[12.5px] font-semibold text-accent-fg hover:bg-accent/90 disabled:opacity-60"
        >
          Enable
        </button>
        <button type="button" onClick={decline} className="inline-flex h-7 items-center rounded-md px-2.5 text-[12.5px] font-medium text-fg-muted hover:bg-hover hover:text-fg">
          Not now
        </button>
      </div>
    </section>
  );
}
