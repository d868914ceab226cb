/**
 * `Markdown`: a chat message's text as sanitized GitHub-flavoured markdown (issue 2 "text
 * rendered as sanitized markdown"). Raw HTML is never interpreted: it is turned into
 * plain text (remark-chat.ts: `<img src=x onerror=…>` shows as typed; line breaks are kept), rehype-sanitize strips anything
 * unsafe that markdown itself could produce, and links open in a new tab with
 * rel="noopener noreferrer".
 */
import { memo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { remarkHtmlAsText, remarkLineBreaks } from "./remark-chat";

const components: Components = {
  a: ({ node: _node, href, children, ...rest }) => (
    <a {...rest} href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  img: ({ node: _node, src, alt }) =>
    typeof src === "string" && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer">
        <img src={src} alt={alt ?? ""} loading="lazy" className="max-h-72 max-w-full rounded-md border border-line" />
      </a>
    ) : (
      <>{alt}</>
    ),
};

const remarkPlugins = [remarkGfm, remarkHtmlAsText, remarkLineBreaks];
const rehypePlugins = [rehypeSanitize];

/** Renders chat text as sanitized markdown (issue 2; see the file comment for the rules). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
