"use client";
/**
 * `ThemeToggle`: switches between light and dark. The choice is stored by
 * components/prefs/theme.ts.
 */
import { useTheme } from "@/components/prefs/theme";
import { MoonIcon, SunIcon } from "@/components/ui/icons";

/** A button that flips the theme between light and dark. */
export function ThemeToggle({ className = "" }: { className?: string }) {
  const { effective, toggle } = useTheme();
  const next = effective === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label={`Switch to ${next} theme`}
      title={`Switch to ${next} theme`}
      className={`inline-flex h-8 w-8 items-center justify-center rounded-md text-fg-muted hover:bg-hover hover:text-fg ${className}`}
    >
      {effective === "dark" ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
