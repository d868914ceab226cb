"use client";
/**
 * `Home`: the workspace's landing page. Opens the last channel visited; on a first visit (no
 * channel visited yet) it shows the welcome (welcome.tsx); with no channel at all it invites the
 * person to create one.
 */
import { DrawerToggle } from "@/components/workspace/drawer-toggle";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useThreads } from "@/components/live/use-threads";
import { readLocal } from "@/components/prefs/local-store";
import { Button } from "@/components/ui/button";
import { HashIcon } from "@/components/ui/icons";
import { LAST_THREAD_KEY } from "@/components/thread/thread-screen";
import { useWorkspace } from "./workspace-context";
import { Welcome } from "./welcome";

/** The `/` page: redirects to a channel or shows the empty workspace. */
export function Home() {
  const router = useRouter();
  const { data: threads, isError, refetch } = useThreads();
  const { openNewChannel } = useWorkspace();

  // Read once on the client: a first visit has no last channel.
  const [last] = useState(() => (typeof window === "undefined" ? undefined : readLocal<string | null>(LAST_THREAD_KEY, null)));
  // The last channel visited; one that is gone gives way to the first.
  const lastThread = last ? (threads?.find((t) => t.id === last) ?? threads?.[0]) : undefined;
  useEffect(() => {
    if (lastThread) router.replace(`/c/${encodeURIComponent(lastThread.id)}`);
  }, [lastThread, router]);

  const empty = threads && threads.length === 0;
  const welcome = threads && threads.length > 0 && last === null;
  return (
    <div className="flex h-full flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-line px-2 sm:px-4">
        <DrawerToggle />
        <h1 className="flex-1 text-[15px] font-bold">Clutch</h1>
      </header>
      {welcome ? <Welcome fallback={{ id: threads[0]!.id, name: threads[0]!.name }} /> : <Landing empty={Boolean(empty)} isError={isError} retry={() => refetch()} create={openNewChannel} />}
    </div>
  );
}

/** While the last channel opens: a note; with no channel, the invitation to create one; or the error. */
function Landing({ empty, isError, retry, create }: { empty: boolean; isError: boolean; retry: () => void; create: () => void }) {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
      {isError ? (
        <>
          <p className="font-medium">Couldn’t reach the server.</p>
          <Button onClick={retry}>Try again</Button>
        </>
      ) : empty ? (
        <>
          <div className="inline-flex h-12 w-12 items-center justify-center rounded-2xl bg-accent/12 text-accent">
            <HashIcon size={24} />
          </div>
          <h2 className="text-lg font-bold">Start with a channel</h2>
          <p className="max-w-sm text-sm text-fg-muted">
            Channels hold the conversation and everything your agents do: tasks, tool calls and routing decisions, live.
          </p>
          <Button variant="primary" onClick={create}>
            Create a channel
          </Button>
        </>
      ) : (
        <p className="text-sm text-fg-muted" role="status">
          Opening your channels…
        </p>
      )}
    </div>
  );
}
