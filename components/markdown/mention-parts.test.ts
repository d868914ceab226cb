/**
 * Mentions drawn inline (mention-parts.ts): which ids a message mentions read as which names,
 * how a text splits into plain parts and mentions, and the rehype steps that draw them in
 * rendered markdown and mark where "(edited)" goes.
 */
import { describe, expect, it } from "vitest";
import { MENTION_CLASS, MENTION_ME_CLASS, mentionLabels, mentionParts, rehypeMentions, rehypeSuffix, SUFFIX_PROPERTY, type HastNode } from "./mention-parts";

const names = {
  me: "user:usr_dana",
  personName: (id: string) => ({ "user:usr_lee": "Lee Member", "user:usr_dana": "Dana Scully" })[id],
  agentName: (id: string) => (id === "agent:pm-1" ? "Project Manager" : id),
};
const LABELS = mentionLabels(["agent:pm-1", "skill:research", "user:usr_lee", "user:usr_dana", "channel"], names);

describe("mentionParts", () => {
  it("draws each mention by name: a person, an agent, a capability as written", () => {
    expect(mentionParts("@Lee_Member ask @pm-1 (or @skill:research).", LABELS)).toEqual([
      { kind: "mention", text: "@Lee Member", id: "user:usr_lee", me: false },
      { kind: "text", text: " ask " },
      { kind: "mention", text: "@Project Manager", id: "agent:pm-1", me: false, title: "@pm-1" },
      { kind: "text", text: " (or " },
      { kind: "mention", text: "@skill:research", id: "skill:research", me: false, title: "A capability: routed to an agent that offers it" },
      { kind: "text", text: ")." },
    ]);
  });

  it("marks a mention of you, and @channel / @everyone, as yours", () => {
    const parts = mentionParts("@dana_scully and @everyone", LABELS).filter((p) => p.kind === "mention");
    expect(parts).toEqual([
      { kind: "mention", text: "@Dana Scully", id: "user:usr_dana", me: true },
      { kind: "mention", text: "@everyone", id: "channel", me: true, title: "Notifies every member of the channel" },
    ]);
  });

  it("leaves handles the message does not mention, and e-mail addresses, as text", () => {
    expect(mentionParts("@Someone_Else mailed lee@Lee_Member", LABELS)).toEqual([{ kind: "text", text: "@Someone_Else mailed lee@Lee_Member" }]);
  });

  it("names a person it does not know as a teammate", () => {
    expect(mentionParts("@user:usr_gone", mentionLabels(["user:usr_gone"], names))).toEqual([{ kind: "mention", text: "@a teammate", id: "user:usr_gone", me: false }]);
  });
});

const text = (value: string): HastNode => ({ type: "text", value });
const el = (tagName: string, ...children: HastNode[]): HastNode => ({ type: "element", tagName, properties: {}, children });

describe("rehypeMentions", () => {
  it("draws mentions as spans of their own, not inside links or code", () => {
    const tree = el("root", el("p", text("hi @Lee_Member, see "), el("a", text("@Lee_Member")), el("code", text("@pm-1"))));
    rehypeMentions(LABELS)(tree);
    const p = tree.children![0]!;
    expect(p.children![1]).toEqual({ type: "element", tagName: "span", properties: { className: MENTION_CLASS.split(" ") }, children: [text("@Lee Member")] });
    expect(p.children![3]).toEqual(el("a", text("@Lee_Member")));
    expect(p.children![4]).toEqual(el("code", text("@pm-1")));
  });

  it("marks yours more strongly", () => {
    const tree = el("root", el("p", text("@Dana_Scully")));
    rehypeMentions(LABELS)(tree);
    expect(tree.children![0]!.children![0]!.properties).toEqual({ className: MENTION_ME_CLASS.split(" ") });
  });
});

describe("rehypeSuffix", () => {
  const mark = { type: "element", tagName: "span", properties: { [SUFFIX_PROPERTY]: "" }, children: [] };

  it("ends the last paragraph", () => {
    const tree = el("root", el("p", text("one")), text("\n"), el("p", text("two")), text("\n"));
    rehypeSuffix()(tree);
    expect(tree.children![2]!.children).toEqual([text("two"), mark]);
  });

  it("ends the last item of a list, inside its paragraph when it has one", () => {
    const tight = el("root", el("ul", el("li", text("a")), el("li", text("b"))));
    rehypeSuffix()(tight);
    expect(tight.children![0]!.children![1]!.children).toEqual([text("b"), mark]);
    const loose = el("root", el("blockquote", el("ol", el("li", el("p", text("c"))))));
    rehypeSuffix()(loose);
    expect(loose.children![0]!.children![0]!.children![0]!.children![0]!.children).toEqual([text("c"), mark]);
  });

  it("goes on a line of its own after a table or code", () => {
    const tree = el("root", el("pre", el("code", text("x"))));
    rehypeSuffix()(tree);
    expect(tree.children![1]).toEqual({ type: "element", tagName: "p", properties: {}, children: [mark] });
  });
});
