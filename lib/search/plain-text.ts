/**
 * Markdown as the words a person reads (docs/channels.md "Search"): what a search excerpt is cut
 * from, so a hit shows "Total 280,054.07 · Profit" rather than `| **Total** | **$280,054.07** |
 * ### Profit`. Parsed with the app's markdown stack (remark-parse + remark-gfm, as
 * react-markdown renders messages), then walked: blocks become lines, a table's cells are joined
 * with " · " and its rows become lines, code keeps its text, images their alt text, links their
 * text; HTML is dropped. Pure, for the server and the browser.
 */
import type { Nodes, Root } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";

const parser = unified().use(remarkParse).use(remarkGfm);

/** Block nodes: each starts a line of its own. */
const BLOCKS = new Set(["paragraph", "heading", "blockquote", "list", "listItem", "code", "table", "thematicBreak", "definition", "footnoteDefinition"]);

/** The text of a node, blocks separated by newlines (see the file comment). */
function textOf(node: Nodes): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
    case "code":
      return node.value;
    case "html":
      return "";
    case "break":
      return "\n";
    case "image":
    case "imageReference":
      return node.alt ?? "";
    case "thematicBreak":
      return "";
    case "table":
      return node.children.map((row) => row.children.map((cell) => inline(cell.children).trim()).filter(Boolean).join(" · ")).join("\n");
    default:
      if (!("children" in node)) return "";
      if (node.children.some((c) => BLOCKS.has(c.type))) return node.children.map((c) => textOf(c as Nodes)).filter((t) => t.trim()).join("\n");
      return inline(node.children as Nodes[]);
  }
}

function inline(children: readonly Nodes[]): string {
  return children.map(textOf).join("");
}

/**
 * `markdown` as plain text: no markdown syntax left, one line per block, spaces within a line
 * collapsed. At most `max` characters of markdown are read (a very long report is cut).
 */
export function markdownToText(markdown: string, max = 50_000): string {
  const tree = parser.parse(markdown.slice(0, max)) as Root;
  return textOf(tree)
    .split("\n")
    .map((l) => l.replace(/[ \t]+/g, " ").trim())
    .filter(Boolean)
    .join("\n");
}
