/**
 * The markdown renderer behind `Markdown` (markdown.tsx loads it on first use): a chat message's text as sanitized GitHub-flavoured markdown. Raw HTML is never interpreted: it is turned into
 * plain text (remark-chat.ts: `<img src=x onerror=…>` shows as typed; line breaks are kept), rehype-sanitize strips anything
 * unsafe that markdown itself could produce, and links open in a new tab with
 * rel="noopener noreferrer".
 *
 * Images load only from the app's own origin or configured hosts (image-source.ts).
 *
 * A message's @mentions read as names (mention-parts.ts, after sanitizing: the step adds only
 * spans of its own), and a `suffix` ("(edited)") ends its last paragraph.
 *
 * Tables (the final report's figures) sit in a scroll box of the
 * message's width, so a wide table scrolls sideways on a phone instead of widening the page;
 * columns GFM aligns right (`---:`) are numeric: right-aligned, tabular figures, no wrapping.
 */
import { createContext, memo, useContext, useMemo, type CSSProperties, type HTMLAttributes, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { NewTabLink } from "@/components/ui/new-tab-link";
import { configuredImageHosts, imageAllowed } from "./image-source";
import { remarkHtmlAsText, remarkLineBreaks } from "./remark-chat";
import { rehypeMentions, rehypeSuffix, SUFFIX_PROPERTY, type MentionLabel } from "./mention-parts";

interface HastNode {
  type: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** What ends the message's last paragraph, handed to the span rehypeSuffix marks. */
const SuffixContext = createContext<ReactNode>(null);

function textOf(node: HastNode | undefined): string {
  if (!node) return "";
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(textOf).join("");
}

/**
 * Right-aligned (GFM `---:`) cells hold figures: tabular and on one line. Short cells (ids,
 * "Office Supplies", "Q4 2017") stay on one line too; longer text wraps.
 */
function cellClass(style: CSSProperties | undefined, node: HastNode | undefined): string | undefined {
  const cls = [style?.textAlign === "right" ? "num" : "", textOf(node).trim().length <= 16 ? "nowrap" : ""].filter(Boolean);
  return cls.length ? cls.join(" ") : undefined;
}

/**
 * A message's headings sit under the page's own (the channel's h1, a card's h3): each is announced
 * two levels down (`aria-level`), and keeps its tag for the document-like styling of reports.
 */
function demoted(level: 1 | 2 | 3 | 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  return function Heading({ node: _node, children, ...rest }: { node?: unknown; children?: ReactNode } & HTMLAttributes<HTMLHeadingElement>) {
    return (
      <Tag {...rest} aria-level={Math.min(6, level + 2)}>
        {children}
      </Tag>
    );
  };
}

const components: Components = {
  h1: demoted(1),
  h2: demoted(2),
  h3: demoted(3),
  h4: demoted(4),
  h5: demoted(5),
  h6: demoted(6),
  table: ({ node: _node, children, ...rest }) => (
    <div className="md-table scroll-slim" role="region" aria-label="Table" tabIndex={0}>
      <table {...rest}>{children}</table>
    </div>
  ),
  th: ({ node, style, children, ...rest }) => (
    <th {...rest} style={style} className={cellClass(style, node as HastNode | undefined)}>
      {children}
    </th>
  ),
  td: ({ node, style, children, ...rest }) => (
    <td {...rest} style={style} className={cellClass(style, node as HastNode | undefined)}>
      {children}
    </td>
  ),
  a: ({ node: _node, href, children, ...rest }) => (
    <NewTabLink {...rest} href={href}>
      {children}
    </NewTabLink>
  ),
  img: ({ node: _node, src, alt }) => <MessageImage src={typeof src === "string" ? src : ""} alt={alt ?? ""} />,
  span: ({ node, children, ...rest }) => ((node as HastNode | undefined)?.properties?.[SUFFIX_PROPERTY] !== undefined ? <Suffix /> : <span {...rest}>{children}</span>),
};

function Suffix() {
  return <>{useContext(SuffixContext)}</>;
}

/**
 * An image of the app's origin (or a configured host) loads; any other is a link that names its
 * host, so viewing a message never calls a third party (image-source.ts).
 */
function MessageImage({ src, alt }: { src: string; alt: string }) {
  if (!src) return <>{alt}</>;
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  if (origin && imageAllowed(src, origin, configuredImageHosts())) {
    return (
      <NewTabLink href={src} arrow={false}>
        <img src={src} alt={alt} loading="lazy" className="max-h-72 max-w-full rounded-md border border-line" />
      </NewTabLink>
    );
  }
  let host = "";
  try {
    host = new URL(src).host;
  } catch {
    return <>{alt}</>;
  }
  return (
    <NewTabLink href={src} title="A remote image: not loaded, so its host cannot see who reads this">
      {alt || "Image"} ({host})
    </NewTabLink>
  );
}

const remarkPlugins = [remarkGfm, remarkHtmlAsText, remarkLineBreaks];
const rehypePlugins = [rehypeSanitize];

/**
 * Renders chat text as sanitized markdown (see the file comment for the rules); `mentions` (the
 * message's, mention-parts.ts `mentionLabels`) are drawn as names, `suffix` ends the text.
 */
const MarkdownRender = memo(function MarkdownRender({ text, mentions, suffix }: { text: string; mentions?: readonly MentionLabel[]; suffix?: ReactNode }) {
  const hasSuffix = suffix !== undefined && suffix !== null;
  const rehype = useMemo(
    () => (mentions?.length || hasSuffix ? [...rehypePlugins, ...(mentions?.length ? [() => rehypeMentions(mentions)] : []), ...(hasSuffix ? [rehypeSuffix] : [])] : rehypePlugins),
    [mentions, hasSuffix],
  );
  return (
    <div className="md">
      <SuffixContext.Provider value={suffix}>
        <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehype} components={components}>
          {text}
        </ReactMarkdown>
      </SuffixContext.Provider>
    </div>
  );
});

export default MarkdownRender;
