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

/** One host name, as the renderer and the CSP compare it: letters, digits and hyphens in dot-separated labels. */
const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Why CLUTCH_IMAGE_HOSTS `value` cannot be used, or null when every entry is a host name. A URL,
 * a path, a port or a wildcard would match no image (the renderer compares host names exactly),
 * so server/config.ts stops the start with this message instead of ignoring them.
 */
export function imageHostsProblem(value: string | undefined): string | null {
  const bad = parseImageHosts(value).find((h) => !HOST.test(h));
  return bad === undefined ? null : `CLUTCH_IMAGE_HOSTS: "${bad}" is not a host name; give host names only, comma-separated, e.g. images.example.com,cdn.example.org`;
}
