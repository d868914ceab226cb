import { describe, expect, it } from "vitest";
import { formatShortcut, hasModOnly, isMacPlatform, modKey } from "./platform";

describe("the platform's modifier", () => {
  it("is ⌘ on macOS and Ctrl on Linux and Windows", () => {
    expect(isMacPlatform("MacIntel")).toBe(true);
    expect(isMacPlatform("macOS")).toBe(true);
    expect(isMacPlatform("Linux x86_64")).toBe(false);
    expect(isMacPlatform("Win32")).toBe(false);
    expect(modKey(true)).toBe("⌘");
    expect(modKey(false)).toBe("Ctrl");
  });

  it("formats a shortcut the way each platform writes it", () => {
    expect(formatShortcut("Mod+K", false)).toBe("Ctrl+K");
    expect(formatShortcut("Mod+K", true)).toBe("⌘K");
    expect(formatShortcut("Alt+Shift+↓", false)).toBe("Alt+Shift+↓");
    expect(formatShortcut("Alt+Shift+↓", true)).toBe("⌥⇧↓");
    expect(formatShortcut("Mod+/", false)).toBe("Ctrl+/");
    expect(formatShortcut("?", true)).toBe("?");
  });

  it("takes Ctrl as the modifier off macOS and ⌘ on it, never both", () => {
    expect(hasModOnly({ ctrlKey: true, metaKey: false, altKey: false }, false)).toBe(true);
    expect(hasModOnly({ ctrlKey: true, metaKey: false, altKey: false }, true)).toBe(false);
    expect(hasModOnly({ ctrlKey: false, metaKey: true, altKey: false }, true)).toBe(true);
    expect(hasModOnly({ ctrlKey: true, metaKey: false, altKey: true }, false)).toBe(false);
  });
});
