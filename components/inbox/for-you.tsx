"use client";
/**
 * `ForYou`, the `/inbox` page (docs/channels.md "For you"): what needs the signed-in person or
 * names them, newest first, from `GET /api/inbox` (components/live/inbox.ts, live):
 * questions put to them or their channels that wait, approvals they may decide, messages
 * that @mention them, and direct messages the other party wrote in (one row per DM, its newest
 * message, "3 new" when more are unread). Each opens in context: the channel with the run's or
 * the message's thread, the DM at its message, or /approvals?approval=<id>. Open items come
 * first; mentions and DMs already read are listed below as done. Rows read as ./wording.ts
 * says. The offer to notify (./attention.tsx) sits above the list.
 */
import Link from "next/link";
import { useEffect, useState } from "react";
import type { InboxItem } from "@/lib/api/types";
import { useInbox } from "@/components/live/inbox";
import { ago } from "@/components/approvals/model";
import { hueFor } from "@/components/events/participant";
import { useNameOf } from "@/components/events/use-sender-name";
import { Avatar } from "@/components/ui/avatar";
import { AtSignIcon, InboxCheckIcon, MessageIcon, MessageQuestionIcon } from "@/components/ui/icons";
import { PageHeader } from "@/components/ui/page-header";
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { useChannelNames } from "@/components/workspace/thread-title";
import { NotifyOffer } from "./attention";
import { itemWords, newCount } from "./wording";

const KIND: Record<InboxItem["kind"], { icon: typeof AtSignIcon; tone: string }> = {
  question: { icon: MessageQuestionIcon, tone: "bg-warning/15 text-warning" },
  approval: { icon: InboxCheckIcon, tone: "bg-accent/12 text-accent" },
  mention: { icon: AtSignIcon, tone: "bg-info/12 text-info" },
  dm: { icon: MessageIcon, tone: "bg-success/12 text-success" },
};

/** The `/inbox` page (see the file comment). */
export function ForYou() {
  const inbox = useInbox();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    document.title = "For you · Clutch";
  }, []);
  const items = inbox.data?.items ?? [];
  const open = items.filter((i) => !i.done);
  const done = items.filter((i) => i.done);

  return (
    <div className="flex h-full min-h-0 flex-col">
      <PageHeader>
        <DrawerToggle />
        <div className="flex min-w-0 flex-1 items-center gap-3">
          <h1 className="flex items-center gap-1.5 text-[15px] font-bold">
            <AtSignIcon size={16} className="shrink-0 text-fg-muted" />
            For you
          </h1>
          {inbox.data && (
            <span className="truncate text-[12.5px] font-medium text-fg-muted" aria-live="polite">
              {open.length ? `${open.length} open` : "Nothing open"}
            </span>
          )}
        </div>
      </PageHeader>
      <div className="scroll-slim min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-3xl px-3 py-3 sm:px-5">
          <NotifyOffer className="mb-3" />
          {inbox.isPending ? (
            <div role="status" aria-busy="true" aria-label="Loading" className="space-y-2">
              {[0.7, 0.5, 0.6].map((w, i) => (
                <div key={i} className="animate-pulse rounded-lg border border-line px-4 py-3">
                  <div className="h-3.5 rounded bg-fg-muted/15" style={{ width: `${w * 100}%` }} />
                  <div className="mt-2 h-3 w-1/2 rounded bg-fg-muted/10" />
                </div>
              ))}
            </div>
          ) : inbox.isError ? (
            <p role="alert" className="px-1 py-6 text-sm text-danger">
              Couldn’t load your inbox.{" "}
              <button type="button" className="font-medium underline" onClick={() => inbox.refetch()}>
                Retry
              </button>
            </p>
          ) : items.length === 0 ? (
            <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" role="status">
              <div className="inline-flex h-12 w-12 items-center justify-center rounded-2xl bg-success/12 text-success">
                <AtSignIcon size={24} />
              </div>
              <h2 className="text-base font-semibold">Nothing needs you right now</h2>
              <p className="max-w-sm text-sm text-fg-muted">
                Questions agents put to you, approvals you may decide, messages that @mention you and direct messages show up here.
              </p>
            </div>
          ) : (
            <>
              {open.length > 0 && <ItemList label="Open" items={open} now={now} />}
              {done.length > 0 && <ItemList label="Done" items={done} now={now} />}
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function ItemList({ label, items, now }: { label: string; items: InboxItem[]; now: number }) {
  const id = `for-you-${label.toLowerCase()}`;
  return (
    <section aria-labelledby={id} className="mb-4">
      <h2 id={id} className="mb-1.5 px-1 text-[11px] font-semibold uppercase tracking-wider text-fg-muted">
        {label} <span className="tabular-nums">· {items.length}</span>
      </h2>
      <ul className="space-y-1.5">
        {items.map((item) => (
          <li key={item.key}>
            <Row item={item} now={now} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function Row({ item, now }: { item: InboxItem; now: number }) {
  const kind = KIND[item.kind];
  const Icon = kind.icon;
  const nameOf = useNameOf();
  const { place, other } = useChannelNames();
  const { who, action } = itemWords(item, { nameOf, place, other });
  const more = newCount(item);
  return (
    <Link
      href={item.href}
      data-testid="for-you-item"
      className={`group flex gap-3 rounded-lg border px-3 py-2.5 hover:border-line-strong hover:bg-hover ${item.done ? "border-line bg-canvas" : "border-line bg-surface shadow-sm"}`}
    >
      <span className="mt-0.5 shrink-0 self-start">
        <Avatar name={who} hue={hueFor(item.from.agent_id)} agent={!item.from.agent_id.startsWith("user:")} size={28} />
      </span>
      <span className="min-w-0 flex-1">
        <span className="flex min-w-0 items-baseline gap-1.5 text-[13px] leading-snug">
          <span className={`min-w-0 break-words ${item.done ? "font-medium text-fg-muted" : "font-semibold text-fg"}`}>
            {who}{" "}
            <span className={`mx-0.5 inline-flex h-4 w-4 translate-y-[3px] items-center justify-center rounded-full ${kind.tone}`} aria-hidden="true">
              <Icon size={10} strokeWidth={2.5} />
            </span>{" "}
            <span className="font-normal text-fg-muted">{action}</span>
          </span>
          <time dateTime={item.at} title={new Date(item.at).toLocaleString()} className="ml-auto shrink-0 text-[11.5px] text-fg-muted">
            {ago(item.at, now)}
          </time>
          {more && <span className="shrink-0 rounded-full bg-accent/12 px-1.5 text-[11px] font-semibold tabular-nums text-accent">{more}</span>}
          {item.unread && (
            <span className="ml-1 inline-block h-2 w-2 shrink-0 self-center rounded-full bg-accent" role="img" aria-label="Unread" />
          )}
        </span>
        <span dir="auto" className={`mt-0.5 line-clamp-2 block text-[13.5px] leading-snug ${item.done ? "text-fg-muted" : "text-fg"}`}>
          {item.text || "(no text)"}
        </span>
        {item.run_title && <span className="mt-0.5 block truncate text-[12px] text-fg-muted">Run: {item.run_title}</span>}
      </span>
    </Link>
  );
}
