"use client";
/** `Snippet`: a search hit's excerpt with the matched words marked (the search page, Ctrl/⌘+K). */
import { snippetParts } from "./api";

/** The matched words of a snippet, marked. */
export function Snippet({ text }: { text: string }) {
  return (
    <>
      {snippetParts(text).map((part, i) =>
        part.hit ? (
          <mark key={i} className="rounded-sm bg-mention px-0.5 font-semibold text-fg">
            {part.text}
          </mark>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}
