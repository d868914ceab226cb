/** `/search?q=&thread_id=&type=&agent=&after=&before=`: full-text search (components/search/search-screen.tsx). */
import type { Metadata } from "next";
import { queryFromParams } from "@/components/search/api";
import { SearchScreen } from "@/components/search/search-screen";

export const metadata: Metadata = { title: "Search · Clutch" };

export default async function SearchPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <SearchScreen initial={queryFromParams(await searchParams)} />;
}
