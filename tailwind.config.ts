/**
 * Theme tokens for Tailwind CSS 4 (loaded by app/globals.css through `@config`).
 *
 * Colours are semantic and point at CSS variables that app/globals.css defines once for the
 * light theme and once for the dark one, so components say `bg-surface text-fg border-line`
 * and never need a `dark:` variant for ordinary chrome. Opacity modifiers (`bg-accent/10`)
 * work because Tailwind 4 mixes them with `color-mix()`.
 */
import type { Config } from "tailwindcss";

const v = (name: string) => `var(--c-${name})`;

const config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        canvas: v("canvas"), // main pane
        surface: v("surface"), // cards, dialogs
        sunken: v("sunken"), // code blocks, JSON, inputs
        hover: v("hover"), // row hover
        sidebar: {
          DEFAULT: v("sidebar"),
          fg: v("sidebar-fg"),
          muted: v("sidebar-muted"),
          hover: v("sidebar-hover"),
          active: v("sidebar-active"),
          "active-fg": v("sidebar-active-fg"),
        },
        line: { DEFAULT: v("line"), strong: v("line-strong") },
        fg: { DEFAULT: v("fg"), muted: v("fg-muted"), subtle: v("fg-subtle") },
        accent: { DEFAULT: v("accent"), fg: v("accent-fg"), soft: v("accent-soft") },
        success: v("success"),
        warning: v("warning"),
        danger: v("danger"),
        info: v("info"),
        agent: v("agent"),
        mention: v("mention"),
      },
      fontFamily: {
        sans: [
          "ui-sans-serif",
          "system-ui",
          "-apple-system",
          "BlinkMacSystemFont",
          '"Segoe UI"',
          "Roboto",
          '"Helvetica Neue"',
          "Arial",
          '"Noto Sans"',
          "sans-serif",
          '"Apple Color Emoji"',
          '"Segoe UI Emoji"',
        ],
        mono: ["ui-monospace", "SFMono-Regular", "Menlo", "Monaco", "Consolas", '"Liberation Mono"', "monospace"],
      },
      fontSize: {
        "2xs": ["0.6875rem", { lineHeight: "1rem" }],
        msg: ["0.9375rem", { lineHeight: "1.4rem" }],
      },
      boxShadow: {
        pop: "0 1px 2px rgb(0 0 0 / 0.06), 0 8px 24px -4px rgb(0 0 0 / 0.18)",
      },
      keyframes: {
        "fade-in": { from: { opacity: "0" }, to: { opacity: "1" } },
        "slide-in": { from: { transform: "translateX(-100%)" }, to: { transform: "translateX(0)" } },
        "pop-in": {
          from: { opacity: "0", transform: "translateY(-4px) scale(0.98)" },
          to: { opacity: "1", transform: "none" },
        },
      },
      animation: {
        "fade-in": "fade-in 120ms ease-out",
        "slide-in": "slide-in 160ms ease-out",
        "pop-in": "pop-in 120ms ease-out",
      },
    },
  },
} satisfies Config;

export default config;
