/**
 * Root layout. Reads the theme cookie on the server so <html> carries `light` / `dark` in the
 * first byte of HTML (no flash on load); without a choice, CSS follows prefers-color-scheme.
 * `data-image-hosts` hands CLUTCH_IMAGE_HOSTS to the message renderer
 * (components/markdown/image-source.ts). Wraps every page in the live data providers and
 * the workspace shell (sidebar, switcher, dialogs).
 */
import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { LiveProviders } from "@/components/live/providers";
import { parseThemeChoice, THEME_COOKIE } from "@/components/prefs/theme-cookie";
import { WorkspaceShell } from "@/components/workspace/workspace-shell";
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
      <body>
        <LiveProviders>
          <WorkspaceShell>{children}</WorkspaceShell>
        </LiveProviders>
      </body>
    </html>
  );
}
