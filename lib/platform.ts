/**
 * The platform's modifier keys, as people read them in a shortcut (docs/channels.md "Keyboard
 * shortcuts"): on macOS ⌘ and ⌥ ("⌘K", "⌥↓"), elsewhere Ctrl and Alt ("Ctrl+K", "Alt+↓").
 * Pure: the platform string is passed in (the browser's `navigator`, see `browserPlatform`), so
 * the server renders the non-Mac form and the browser settles it after hydration
 * (components/ui/keys.tsx `usePlatformMac`).
 *
 * A shortcut is written once, platform-free, as `+`-joined tokens: `Mod` (⌘ on macOS, Ctrl
 * elsewhere), `Alt`, `Shift`, then the key: "Mod+K", "Alt+Shift+↓", "?".
 */

/** True when `platform` (navigator.userAgentData.platform, navigator.platform or a user agent) names an Apple OS. */
export function isMacPlatform(platform: string | null | undefined): boolean {
  return /mac|iphone|ipad|ipod/i.test(platform ?? "");
}

/** The browser's platform string ("" outside a browser). */
export function browserPlatform(): string {
  if (typeof navigator === "undefined") return "";
  const data = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData;
  return data?.platform || navigator.platform || navigator.userAgent || "";
}

/** The command modifier as shown: "⌘" on macOS, "Ctrl" elsewhere. */
export function modKey(mac: boolean = isMacPlatform(browserPlatform())): "⌘" | "Ctrl" {
  return mac ? "⌘" : "Ctrl";
}

/** The option modifier as shown: "⌥" on macOS, "Alt" elsewhere. */
export function altKey(mac: boolean = isMacPlatform(browserPlatform())): "⌥" | "Alt" {
  return mac ? "⌥" : "Alt";
}

const MAC_SYMBOL: Record<string, string> = { Mod: "⌘", Alt: "⌥", Shift: "⇧", Ctrl: "⌃" };

/**
 * A platform-free shortcut ("Mod+K", "Alt+Shift+↓", "?") as the platform shows it: on macOS
 * symbols run together ("⌘K", "⌥⇧↓"); elsewhere names joined by "+" ("Ctrl+K", "Alt+Shift+↓").
 * A lone "+" key is kept ("Mod++").
 */
export function formatShortcut(combo: string, mac: boolean = isMacPlatform(browserPlatform())): string {
  const parts = combo === "+" ? ["+"] : combo.endsWith("++") ? [...combo.slice(0, -2).split("+"), "+"] : combo.split("+");
  if (mac) return parts.map((p) => MAC_SYMBOL[p] ?? p).join("");
  return parts.map((p) => (p === "Mod" ? "Ctrl" : p)).join("+");
}

/** True when a keydown has the platform's command modifier (⌘ on macOS, Ctrl elsewhere) and no other. */
export function hasModOnly(e: Pick<KeyboardEvent, "metaKey" | "ctrlKey" | "altKey">, mac: boolean = isMacPlatform(browserPlatform())): boolean {
  return !e.altKey && (mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey);
}
