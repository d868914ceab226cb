/**
 * Which images a message may load. A markdown image is fetched by every browser that shows the
 * message, so a remote one works as a tracking pixel: it tells its host who read the message and
 * when. Only images of the app's own origin load (artifacts, uploads), plus the hosts an operator
 * lists in `CLUTCH_IMAGE_HOSTS` (comma-separated host names, e.g. `images.example.com`), which the
 * root layout hands to the browser as `<html data-image-hosts>`. The server's Content-Security-Policy
 * `img-src` enforces the same rule (server/http/front-door.ts). See docs/limits.md.
 */
import { parseImageHosts } from "@/lib/image-hosts";

/** The configured extra image hosts, read from `<html data-image-hosts>` (empty on the server). */
export function configuredImageHosts(): string[] {
  if (typeof document === "undefined") return [];
  return parseImageHosts(document.documentElement.dataset.imageHosts);
}

/**
 * True when `src` may load: a relative URL, a URL of `origin`, a `data:` image, or an https URL on
 * one of `hosts`. Anything that does not parse is refused.
 */
export function imageAllowed(src: string, origin: string, hosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(src, origin);
  } catch {
    return false;
  }
  if (url.protocol === "data:") return /^data:image\/(png|jpeg|gif|webp|avif);/i.test(src);
  if (url.origin === origin) return true;
  return url.protocol === "https:" && hosts.includes(url.hostname.toLowerCase());
}
