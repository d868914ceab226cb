/**
 * The extra hosts message images may load from: CLUTCH_IMAGE_HOSTS, comma-separated host names
 * (docs/limits.md, "Message images"). Read by the server's Content-Security-Policy and the
 * browser's message renderer alike.
 */

/** `"a.example, b.example"` → `["a.example", "b.example"]` (lowercase, blanks dropped). */
export function parseImageHosts(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}
