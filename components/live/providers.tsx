"use client";
/**
 * `LiveProviders`: TanStack Query for server state plus the socket → cache sync. Wraps the whole
 * app in app/layout.tsx.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { ApiRequestError } from "./api";
import { startLiveSync } from "./live-sync";

/** Retry network and server errors twice; a 4xx (unknown channel, bad input) is final. */
function retry(failures: number, error: unknown): boolean {
  if (error instanceof ApiRequestError && error.status >= 400 && error.status < 500) return false;
  return failures < 2;
}

/** QueryClientProvider plus the socket → cache sync, for the whole app. */
export function LiveProviders({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry, refetchOnWindowFocus: false },
          mutations: { retry: false },
        },
      }),
  );
  useEffect(() => startLiveSync(client), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
