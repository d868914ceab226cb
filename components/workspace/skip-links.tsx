"use client";
/**
 * Skip links: the first Tab stops of every page, shown when focused (WCAG 2.4.1 "Bypass
 * Blocks"). In a channel, "Skip to conversation" (its message log) and "Skip to composer" (its
 * message box), so Tab, Tab, Enter reaches the composer from the top; elsewhere "Skip to content"
 * (the page's main region). Each moves the focus without scrolling the conversation.
 */
import type { MouseEvent } from "react";

/** The id of a channel's message log (components/thread/message-list.tsx). */
export const CONVERSATION_ID = "conversation";
/** The id of a channel's message box (components/thread/composer.tsx, the channel's own). */
export const COMPOSER_ID = "composer";
/** The id of the shell's main region. */
export const CONTENT_ID = "content";

const LINK =
  "sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-[70] focus:rounded-md focus:bg-accent focus:px-3 focus:py-2 focus:text-[13px] focus:font-semibold focus:text-accent-fg focus:shadow-pop";

function SkipLink({ to, children }: { to: string; children: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    const el = document.getElementById(to);
    if (!el) return;
    e.preventDefault();
    el.focus({ preventScroll: to === CONVERSATION_ID });
  };
  return (
    <a href={`#${to}`} onClick={onClick} className={LINK}>
      {children}
    </a>
  );
}

/** The skip links for the page: a channel's two, or "Skip to content". */
export function SkipLinks({ inChannel }: { inChannel: boolean }) {
  return inChannel ? (
    <>
      <SkipLink to={CONVERSATION_ID}>Skip to conversation</SkipLink>
      <SkipLink to={COMPOSER_ID}>Skip to composer</SkipLink>
    </>
  ) : (
    <SkipLink to={CONTENT_ID}>Skip to content</SkipLink>
  );
}
