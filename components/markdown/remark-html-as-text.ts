/**
 * A remark plugin that turns raw HTML in markdown into literal text (issue 2 "a chat message
 * containing `<img src=x onerror=alert(1)>` must show as text"). Without it the HTML would be
 * silently dropped; with it the reader sees exactly what was typed, and nothing is parsed as
 * HTML. Block HTML becomes a paragraph, inline HTML a text node.
 */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

function convert(node: MdNode, parentIsBlock: boolean): MdNode {
  if (node.type === "html") {
    const text: MdNode = { type: "text", value: node.value ?? "" };
    return parentIsBlock ? { type: "paragraph", children: [text] } : text;
  }
  if (node.children) {
    const block = node.type === "root" || node.type === "blockquote" || node.type === "listItem";
    node.children = node.children.map((c) => convert(c, block));
  }
  return node;
}

export function remarkHtmlAsText() {
  return (tree: MdNode) => {
    convert(tree, true);
  };
}
