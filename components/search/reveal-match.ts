/**
 * Opening a search hit (docs/channels.md "Search"): once the thread has scrolled to the event,
 * `revealMatch` unfolds what folds the matched words away ("Show more", components/ui/foldable),
 * highlights every occurrence of them in the event (the CSS Custom Highlight API, highlight
 * name `search-match`, styled in app/globals.css; the DOM React draws is left untouched) and
 * brings the first one to the middle of the view. Browsers without the API get the unfolding and
 * the scroll. Safe to call on any element; does nothing without words.
 */

/** The name of the highlight in `CSS.highlights`. */
export const MATCH_HIGHLIGHT = "search-match";

/** The ranges of `el`'s text where one of `words` occurs (case-insensitive), in document order. */
export function matchRanges(el: Element, words: readonly string[]): Range[] {
  const wanted = words.map((w) => w.trim().toLowerCase()).filter(Boolean);
  if (!wanted.length) return [];
  const out: Range[] = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.nodeValue ?? "").toLowerCase();
    for (const w of wanted) {
      for (let at = text.indexOf(w); at >= 0; at = text.indexOf(w, at + w.length)) {
        const r = document.createRange();
        r.setStart(node, at);
        r.setEnd(node, at + w.length);
        out.push(r);
      }
    }
  }
  return out.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b));
}

/** See the file comment. `words`: the matched words of the hit (its `hl` parameter). */
export function revealMatch(el: Element, words: readonly string[]): void {
  if (!words.length) return;
  for (const button of el.querySelectorAll<HTMLButtonElement>('button[aria-expanded="false"]')) {
    if (button.textContent?.trim() === "Show more") button.click();
  }
  // After the unfolded content is laid out (and the virtualizer has measured the row again).
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      const ranges = matchRanges(el, words);
      const highlights = typeof CSS !== "undefined" ? (CSS as unknown as { highlights?: Map<string, unknown> }).highlights : undefined;
      const HighlightCtor = (globalThis as { Highlight?: new (...r: Range[]) => unknown }).Highlight;
      if (highlights && HighlightCtor) highlights.set(MATCH_HIGHLIGHT, new HighlightCtor(...ranges));
      const first = ranges[0]?.startContainer.parentElement;
      if (!first) return;
      centerInScroller(first);
      // Again once the list's own smooth scroll to the event has settled.
      setTimeout(() => first.isConnected && centerInScroller(first), 450);
    }),
  );
}

/** Scrolls the nearest scrolling ancestor of `el` (only it, not the page) so `el` is in its middle. */
function centerInScroller(el: HTMLElement): void {
  for (let box = el.parentElement; box; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && box.scrollHeight > box.clientHeight + 1) {
      const r = el.getBoundingClientRect();
      const top = box.scrollTop + (r.top - box.getBoundingClientRect().top) - (box.clientHeight - r.height) / 2;
      box.scrollTo({ top: Math.max(0, top) });
      return;
    }
  }
}

/** The words of a hit's `hl` URL parameter. */
export function highlightWords(param: string | null): string[] {
  return param ? param.split(/\s+/).filter(Boolean).slice(0, 10) : [];
}
