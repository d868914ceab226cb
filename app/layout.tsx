/**
 * Root layout. Reads the theme cookie on the server so <html> carries `light` / `dark` in the
 * first byte of HTML (no flash on load); without a choice, CSS follows prefers-color-scheme.
 * `data-image-hosts` hands CLUTCH_IMAGE_HOSTS to the message renderer
 * (components/markdown/image-source.ts). The workspace pages (app/(app)) add the door (a
 * signed-in person) and the shell; the sign-in, setup and invite pages (app/(auth)) stand alone.
 */
import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { parseThemeChoice, THEME_COOKIE } from "@/components/prefs/theme-cookie";
import "./globals.css";

/** Title and description of every page. */
export const metadata: Metadata = {
  title: "Clutch",
  description: "Work with teams of AI agents like colleagues.",
};

/** Mobile viewport and the browser chrome colour per scheme. */
export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#18191d" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const choice = parseThemeChoice((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html
      lang="en"
      className={choice === "system" ? undefined : choice}
      data-image-hosts={process.env.CLUTCH_IMAGE_HOSTS || undefined}
      suppressHydrationWarning
    >
      <body>{children}</body>
    </html>
  );
}
