"use client";
/**
 * `LiveProviders`: TanStack Query for server state plus the socket → cache sync. Wraps the
 * workspace in app/(app)/layout.tsx, its cache seeded with the data the page came with
 * (`initial`, app/(app)/initial-data.ts).
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import type { ThreadSummary } from "@/lib/api/types";
import { ApiRequestError } from "./api";
import { startLiveSync } from "./live-sync";
import { queryKeys } from "./query-keys";

/** Retry network and server errors twice; a 4xx (unknown channel, bad input) is final. */
function retry(failures: number, error: unknown): boolean {
  if (error instanceof ApiRequestError && error.status >= 400 && error.status < 500) return false;
  return failures < 2;
}

/**
 * QueryClientProvider plus the socket → cache sync, for the whole app. `initial.threads`: the
 * channel list as the page's HTML had it, the cache's first entry (never fetched again for it).
 */
export function LiveProviders({ initial, children }: { initial?: { threads?: ThreadSummary[] }; children: ReactNode }) {
  const [client] = useState(() => {
    const qc = new QueryClient({
      defaultOptions: {
        queries: { retry, refetchOnWindowFocus: false },
        mutations: { retry: false },
      },
    });
    if (initial?.threads) qc.setQueryData(queryKeys.threads, initial.threads);
    return qc;
  });
  useEffect(() => startLiveSync(client), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
