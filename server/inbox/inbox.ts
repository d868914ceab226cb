/**
 * The For you inbox (`GET /api/inbox`, docs/channels.md "For you"): a projection of what the
 * log addresses to one person, like an agent's inbox, with no store of its own.
 *
 * - questions to people that still wait (tasks' `open_questions`), put to the channel (`user`)
 *   or to the person, in channels they may read;
 * - pending approvals the person may decide (lib/approvers.ts `mayDecide`), in channels they
 *   may read, and those of direct messages whose rule names them (server/policy/list.ts
 *   `visibleApprovals`, as `GET /api/approvals` lists them);
 * - messages that @mention them (`payload.mentions`), or everyone in a channel they may read
 *   (`@channel`, and `@here`, which counts as `@channel`: presence is not stored), from the last
 *   MENTION_DAYS days;
 * - direct messages: one item per DM the person is in where the other party wrote in the last
 *   MENTION_DAYS days, showing its newest message from them, with how many of theirs are unread.
 *   It stands for the DM's messages, so a mention among them is not listed again, and a question
 *   listed as such is not repeated as its DM's newest message.
 *
 * Each is unread when it is newer than the person's read mark of its channel
 * (server/events/read-marks.ts); a mention and a DM are done once read. Questions and approvals
 * leave the inbox when answered or decided, since they are read from the projections that say
 * they wait.
 */
import type { InboxAnswer, InboxItem } from "@/lib/api/types";
import { mayDecide, type Decider } from "@/lib/approvers";
import { inConversation } from "@/lib/conversation";
import { excerpt } from "@/lib/fold/questions";
import type { StoredEventOf } from "@/lib/protocol";
import { visibleApprovals } from "../policy/list";
import type { Readable } from "../auth/access";
import type { Queries } from "../events/queries";
import type { ReadMarkView } from "../events/read-marks";
import { runTitles } from "../events/runs";

/** How far back mentions are listed (days). */
export const MENTION_DAYS = 30;
/** At most this many items of each kind. */
export const INBOX_LIMIT = 100;

/** How much of a message an item shows (characters). */
const EXCERPT = 280;

/** Where a message opens in context: a reply in its message's thread, machinery in its run's thread, else the channel. */
function messageHref(ev: StoredEventOf<"chat.message">): string {
  const q = new URLSearchParams();
  if (typeof ev.payload.reply_to === "string" && ev.to.length === 0) q.set("message", ev.payload.reply_to);
  else if (!inConversation(ev)) q.set("run", ev.run_id);
  q.set("event", ev.id);
  return `/c/${encodeURIComponent(ev.thread_id)}?${q}`;
}

const fromOf = (ev: StoredEventOf<"chat.message">) => ({ agent_id: ev.from.agent_id, ...(ev.from.display_name ? { display_name: ev.from.display_name } : {}) });

/**
 * The inbox of `person` (`agent_id` user:<id>, role, email), who may read `readable`, with
 * their read marks `marks` (by channel id): the items newest first and the number not done.
 */
export async function inboxOf(queries: Queries, person: Decider, readable: Readable, marks: ReadonlyMap<string, ReadMarkView>): Promise<InboxAnswer> {
  const ids = readable.all ? "all" : [...readable.ids];
  const since = new Date(Date.now() - MENTION_DAYS * 24 * 3600 * 1000);
  const seqs = new Map([...marks].map(([thread_id, mark]) => [thread_id, mark.seq]));
  const [questions, mentions, pending, dmActivity] = await Promise.all([
    queries.openQuestionsFor(person.agent_id, ids, INBOX_LIMIT),
    queries.mentionsOf(person.agent_id, ids, since, INBOX_LIMIT),
    visibleApprovals(queries, readable, person, "pending"),
    queries.directMessagesTo(person.agent_id, ids, seqs, since, INBOX_LIMIT),
  ]);
  const dms = dmActivity.filter((dm) => inConversation(dm.event));
  // Those of a channel the person may read that they may decide, and a direct message's whose rule names them (outside_dm).
  const approvals = pending.filter((a) => a.outside_dm || mayDecide(a.approvers, person, { requesters: a.requesters, forbidSelf: a.forbid_self_approval })).slice(-INBOX_LIMIT);
  const names = await queries.threadNames([...questions, ...mentions, ...dms.map((dm) => dm.event)].map((e) => e.thread_id));
  const titles = await runTitles(queries, await queries.runs(questions.map((q) => q.run_id)));
  const unread = (thread_id: string, seq: number) => seq > (marks.get(thread_id)?.seq ?? 0);

  // A question, a mention or a DM's newest message: a message, shown where it was said.
  const messageItem = (kind: "question" | "mention" | "dm", ev: StoredEventOf<"chat.message">): InboxItem => {
    const isUnread = unread(ev.thread_id, ev.seq);
    return {
      kind,
      key: `${kind}:${ev.run_id}/${ev.id}`,
      thread_id: ev.thread_id,
      thread_name: names.get(ev.thread_id) ?? null,
      run_id: ev.run_id,
      event_id: ev.id,
      seq: ev.seq,
      approval_id: null,
      from: fromOf(ev),
      text: excerpt(typeof ev.payload.text === "string" ? ev.payload.text : "", EXCERPT),
      // A question opens in its run's thread; a mention or a DM is done once read.
      run_title: kind === "question" ? (titles.get(ev.run_id) ?? null) : null,
      at: ev.ts,
      href: kind === "question" ? `/c/${encodeURIComponent(ev.thread_id)}?${new URLSearchParams({ run: ev.run_id, event: ev.id })}` : messageHref(ev),
      unread: isUnread,
      done: kind !== "question" && !isUnread,
    };
  };
  // Listed as a question already: not repeated as a mention or as its DM's newest message.
  const asked = new Set(questions.map((q) => `${q.run_id}/${q.id}`));
  const dmItems = dms
    .filter((dm) => !asked.has(`${dm.event.run_id}/${dm.event.id}`))
    .map((dm): InboxItem => ({ ...messageItem("dm", dm.event), unread_count: dm.unread }));
  // A DM's item stands for the other party's messages in its conversation, mentions among them.
  const inDmItem = new Set(dmItems.map((i) => i.thread_id));
  const listedMention = (ev: StoredEventOf<"chat.message">) => !asked.has(`${ev.run_id}/${ev.id}`) && !(inDmItem.has(ev.thread_id) && inConversation(ev));
  const items: InboxItem[] = [
    ...questions.map((ev) => messageItem("question", ev)),
    ...approvals.map((a): InboxItem => ({
      kind: "approval",
      key: `approval:${a.approval_id}`,
      thread_id: a.thread_id,
      thread_name: a.thread_name,
      run_id: a.run_id,
      event_id: a.approval_id,
      seq: a.request_seq,
      approval_id: a.approval_id,
      from: { agent_id: a.agent_id },
      text: excerpt(a.summary, EXCERPT),
      run_title: a.run_title,
      at: a.requested_at,
      href: `/approvals?${new URLSearchParams({ approval: a.approval_id })}`,
      unread: unread(a.thread_id, a.request_seq),
      done: false,
    })),
    ...mentions.filter(listedMention).map((ev) => messageItem("mention", ev)),
    ...dmItems,
  ].sort((a, b) => b.seq - a.seq);
  return { items, open: items.filter((i) => !i.done).length };
}
