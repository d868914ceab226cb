/**
 * Remark plugins for chat text:
 *
 * - `remarkHtmlAsText` turns raw HTML into literal text, so a message containing
 *   `<img src=x onerror=alert(1)>` shows exactly what was typed and nothing is parsed as HTML
 *   (without it the HTML would silently vanish). Block HTML becomes a paragraph.
 * - `remarkLineBreaks` keeps the person's line breaks (Shift+Enter) as line breaks, as chat
 *   apps do, instead of markdown's "soft break = space".
 */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

const BLOCK_PARENTS = new Set(["root", "blockquote", "listItem", "footnoteDefinition"]);

function htmlAsText(node: MdNode, parentIsBlock: boolean): MdNode {
  if (node.type === "html") {
    const text: MdNode = { type: "text", value: node.value ?? "" };
    return parentIsBlock ? { type: "paragraph", children: [text] } : text;
  }
  if (node.children) {
    const block = BLOCK_PARENTS.has(node.type);
    node.children = node.children.map((c) => htmlAsText(c, block));
  }
  return node;
}

function lineBreaks(node: MdNode): void {
  if (!node.children) return;
  const out: MdNode[] = [];
  for (const child of node.children) {
    if (child.type === "text" && child.value?.includes("\n")) {
      child.value.split(/\r?\n/).forEach((part, i) => {
        if (i > 0) out.push({ type: "break" });
        if (part) out.push({ type: "text", value: part });
      });
    } else {
      lineBreaks(child);
      out.push(child);
    }
  }
  node.children = out;
}

/** Remark plugin: raw HTML → literal text. */
export function remarkHtmlAsText() {
  return (tree: MdNode) => {
    htmlAsText(tree, true);
  };
}

/** Remark plugin: a single newline in chat text is a line break. */
export function remarkLineBreaks() {
  return (tree: MdNode) => {
    lineBreaks(tree);
  };
}
