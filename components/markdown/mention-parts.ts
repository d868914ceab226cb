/**
 * Mentions drawn inline in a message (docs/channels.md "Mentions"): each `@handle` the message
 * mentions reads as one highlighted name, "@Lee Member" for a person, "@Project Manager" for an
 * agent, "@skill:research" for a capability, "@here" / "@channel" as written, stronger when it
 * mentions you (`@here` and `@channel` mention everyone, you included).
 *
 * Only what the message's `mentions` hold is drawn so (the server read them from the text,
 * lib/mentions.ts): a handle nobody resolves stays plain text, as it notified nobody. Pure:
 *
 *   mentionLabels(mentions, names)   how each mentioned id is written and shown
 *   mentionParts(text, labels)       a text split into plain parts and mentions
 *   rehypeMentions(labels)           a rehype step that draws them in rendered markdown (not
 *                                    inside links or code); it runs after sanitizing, and adds
 *                                    only spans of its own with text
 *   rehypeSuffix()                   a rehype step that marks where "(edited)" goes: the end of
 *                                    the last paragraph, as in Slack
 */
import { isSpecialMention, mentionSpans, personHandle } from "@/lib/mentions";

/** How one mentioned id is written in text (`tokens`, lower case) and shown. */
export interface MentionLabel {
  id: string;
  /** What follows `@` in the text for it, lower case: a person's handle or id, an agent's handle or id, `channel` and `everyone`… */
  tokens: string[];
  /** What it reads as ("@Lee Member"); null: as written ("@here", "@skill:research"). */
  label: string | null;
  /** It mentions the person reading: their own id, or `@here` / `@channel`. */
  me: boolean;
  /** A tooltip saying what it does, where that is not plain from the name. */
  title?: string;
}

/** A piece of text: as written, or a mention. */
export type TextPart = { kind: "text"; text: string } | { kind: "mention"; text: string; id: string; me: boolean; title?: string };

/** How `mentionLabels` names the mentioned. */
export interface MentionNames {
  /** `user:<id>` of the person reading, or null. */
  me: string | null;
  /** A person's profile name, when known. */
  personName(id: string): string | undefined;
  /** An agent's name as people read it (its card's display name). */
  agentName(id: string): string;
}

/** What each of a message's `mentions` (lib/mentions.ts ids) is written as and reads as. */
export function mentionLabels(mentions: readonly string[], names: MentionNames): MentionLabel[] {
  return mentions.map((id): MentionLabel => {
    if (id.startsWith("user:")) {
      const name = names.personName(id);
      const handle = name ? personHandle(name).toLowerCase() : "";
      return { id, tokens: [id.toLowerCase(), ...(handle ? [handle] : [])], label: `@${name ?? "a teammate"}`, me: id === names.me };
    }
    if (id.startsWith("agent:")) {
      const handle = id.slice("agent:".length);
      return { id, tokens: [id.toLowerCase(), handle.toLowerCase()], label: `@${names.agentName(id)}`, me: false, title: `@${handle}` };
    }
    if (isSpecialMention(id)) {
      return id === "here"
        ? { id, tokens: ["here"], label: null, me: true, title: "Notifies everyone online in the channel" }
        : { id, tokens: ["channel", "everyone"], label: null, me: true, title: "Notifies every member of the channel" };
    }
    return { id, tokens: [id.toLowerCase()], label: null, me: false, title: "A capability: routed to an agent that offers it" };
  });
}

/** `text` split at the mentions `labels` name (lib/mentions.ts finds them, as the server does). */
export function mentionParts(text: string, labels: readonly MentionLabel[]): TextPart[] {
  const byToken = new Map<string, MentionLabel>();
  for (const l of labels) for (const t of l.tokens) if (!byToken.has(t)) byToken.set(t, l);
  const parts: TextPart[] = [];
  let at = 0;
  for (const span of mentionSpans(text)) {
    const l = byToken.get(span.token.toLowerCase());
    if (!l) continue;
    if (span.start > at) parts.push({ kind: "text", text: text.slice(at, span.start) });
    parts.push({ kind: "mention", text: l.label ?? text.slice(span.start, span.end), id: l.id, me: l.me, ...(l.title ? { title: l.title } : {}) });
    at = span.end;
  }
  if (at < text.length) parts.push({ kind: "text", text: text.slice(at) });
  return parts;
}

/** A node of a rendered (HTML) tree, as much as these steps read of it. */
export interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** The classes of a mention; of one that mentions you (in markdown-render's scanned sources). */
export const MENTION_CLASS = "rounded px-0.5 font-semibold bg-accent/10 text-accent";
export const MENTION_ME_CLASS = "rounded px-0.5 font-semibold bg-mention text-fg ring-1 ring-warning/40";

/** Elements whose text is never a mention: links, code. */
const NO_MENTIONS = new Set(["a", "code", "pre"]);

function drawMentions(node: HastNode, labels: readonly MentionLabel[]): void {
  if (!node.children || (node.tagName && NO_MENTIONS.has(node.tagName))) return;
  const out: HastNode[] = [];
  for (const child of node.children) {
    if (child.type !== "text" || !child.value?.includes("@")) {
      drawMentions(child, labels);
      out.push(child);
      continue;
    }
    for (const part of mentionParts(child.value, labels)) {
      if (part.kind === "text") out.push({ type: "text", value: part.text });
      else
        out.push({
          type: "element",
          tagName: "span",
          properties: { className: (part.me ? MENTION_ME_CLASS : MENTION_CLASS).split(" "), ...(part.title ? { title: part.title } : {}) },
          children: [{ type: "text", value: part.text }],
        });
    }
  }
  node.children = out;
}

/** Rehype step: draws the mentions `labels` name (see the file comment). */
export function rehypeMentions(labels: readonly MentionLabel[]) {
  return (tree: HastNode) => {
    if (labels.length) drawMentions(tree, labels);
  };
}

/** The property that marks where a message's suffix goes (markdown-render draws the suffix there). */
export const SUFFIX_PROPERTY = "dataMessageSuffix";

const INLINE_END = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li"]);

function lastElement(node: HastNode): HastNode | undefined {
  return node.children?.findLast((c) => c.type === "element");
}

/**
 * Rehype step: an empty span marked `SUFFIX_PROPERTY` at the end of the text's last paragraph
 * (or heading, or list item; into a quote), else in a paragraph of its own after a table or code.
 */
export function rehypeSuffix() {
  return (tree: HastNode) => {
    const mark: HastNode = { type: "element", tagName: "span", properties: { [SUFFIX_PROPERTY]: "" }, children: [] };
    let at = lastElement(tree);
    for (;;) {
      if (at?.tagName === "blockquote" || at?.tagName === "ul" || at?.tagName === "ol") at = lastElement(at);
      else if (at?.tagName === "li" && lastElement(at)?.tagName === "p") at = lastElement(at);
      else break;
    }
    if (at?.tagName && INLINE_END.has(at.tagName)) (at.children ??= []).push(mark);
    else (tree.children ??= []).push({ type: "element", tagName: "p", properties: {}, children: [mark] });
  };
}
