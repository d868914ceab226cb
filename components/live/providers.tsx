"use client";
/**
 * `LiveProviders`: TanStack Query for server state plus the socket → cache sync (issue 2
 * "Use TanStack Query for server state", "live"). Wraps the whole app in app/layout.tsx.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { startLiveSync } from "./live-sync";

export function LiveProviders({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry: 2, refetchOnWindowFocus: false },
          mutations: { retry: false },
        },
      }),
  );
  useEffect(() => startLiveSync(client), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
