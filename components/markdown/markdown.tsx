"use client";
/**
 * `Markdown`: a message's text as sanitized GitHub-flavoured markdown (markdown-render.tsx has the
 * rules: raw HTML shown as typed, links in a new tab, images only from allowed hosts, tables that
 * scroll sideways).
 *
 * The renderer (react-markdown with GFM and sanitizing, about 180 KB of JavaScript) is loaded on
 * its own, after the page is interactive: `preloadMarkdown()` starts it as a channel opens, and
 * until it has arrived a message shows its text as written (line breaks kept, marked
 * `data-markdown-pending`). So the composer does not wait for it (bench/composer.ts).
 *
 * `mentions` draw the message's @mentions as names (mention-parts.ts); `suffix` ends the text
 * (a message's "(edited)").
 */
import { lazy, Suspense, type ReactNode } from "react";
import type { MentionLabel } from "./mention-parts";

const load = () => import("./markdown-render");
const Render = lazy(load);

/** `text` rendered as markdown; as plain text for the moment the renderer is still loading. */
export function Markdown({ text, mentions, suffix }: { text: string; mentions?: readonly MentionLabel[]; suffix?: ReactNode }) {
  return (
    <Suspense
      fallback={
        <div className="md whitespace-pre-wrap break-words" data-markdown-pending="">
          {text}
          {suffix}
        </div>
      }
    >
      <Render text={text} mentions={mentions} suffix={suffix} />
    </Suspense>
  );
}

/** Starts loading the renderer before the first message needs it. */
export function preloadMarkdown(): void {
  void load();
}
