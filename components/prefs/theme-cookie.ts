/**
 * The theme cookie, so the choice is remembered and shows with no flash on load: read by the
 * root layout on the server, written by components/prefs/theme.ts in the browser.
 */
export type ThemeChoice = "light" | "dark" | "system";
/** Cookie that remembers the theme choice for a year. */
export const THEME_COOKIE = "clutch-theme";

/** Reads the cookie value as a ThemeChoice ("system" for anything else). */
export function parseThemeChoice(value: string | undefined | null): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}
