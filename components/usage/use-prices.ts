"use client";
/**
 * `usePrices()`: the workspace's model prices (`GET /api/usage/prices`), fetched once per page
 * and kept a minute; until they arrive (or when they cannot be read) every cost shows as
 * unknown rather than guessed (lib/fold/usage.ts).
 */
import { useQuery } from "@tanstack/react-query";
import { apiRequest } from "@/components/live/api";
import { EMPTY_PRICES, type PriceTable } from "@/lib/fold/usage";

export function usePrices(): PriceTable {
  const q = useQuery({
    queryKey: ["usage-prices"],
    queryFn: () => apiRequest<PriceTable>("/api/usage/prices"),
    staleTime: 60_000,
  });
  return q.data ?? EMPTY_PRICES;
}
