/** `/schemas` and `/schemas/<name>@<version>`: the schema registry (components/schemas/schema-browser.tsx). */
import type { Metadata } from "next";
import { SchemaBrowser } from "@/components/schemas/schema-browser";
import { refOfSegments } from "@/components/schemas/model";

export const metadata: Metadata = { title: "Schemas · Clutch" };

export default async function SchemasPage({ params }: { params: Promise<{ ref?: string[] }> }) {
  const { ref } = await params;
  return <SchemaBrowser selectedRef={refOfSegments(ref)} />;
}
