/**
 * People's ids. A person is `user:<slug of their display name>` (role human), e.g.
 * "Renée Smith" → `user:renee-smith`; shared by the server (who sent a message) and the
 * browser (whose avatar it is).
 */
export function personId(displayName: string | undefined): string {
  const slug = (displayName ?? "")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `user:${slug || "anonymous"}`;
}
