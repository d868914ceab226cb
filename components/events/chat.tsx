/**
 * Conversation renderers (Clutch Protocol §2.2): chat.message and chat.system. A question to the
 * people of the channel is highlighted as waiting for an answer, with a Reply button, until it
 * is answered; messages between agents say who they are for ("Project Manager → Analyst"); a reply
 * links to the message it answers; an overseer's question carries an "Oversight inquiry" badge.
 * Every sender and recipient reads by name, an agent by its card's display name, the id as the
 * tooltip (docs/channels.md "One name per agent"); @mentions read as names in the text. A
 * message's reactions, edits, deletion and pin, and the actions on it, are message-actions.tsx's.
 */
"use client";
import { usePersonLabel } from "@/components/identity/names";
import { useNameOf } from "./use-sender-name";
import { ShieldCheckIcon } from "@/components/ui/icons";
import type { StoredEvent, StoredEventOf } from "@/lib/protocol";
import { excerpt, isPeopleRecipient, type MessageRef, type QuestionView } from "@/lib/fold/questions";
import { Markdown } from "@/components/markdown/markdown";
import { Foldable } from "@/components/ui/foldable";
import { StatusBadge } from "@/components/ui/chip";
import { AlertIcon, CheckIcon, ClockIcon, CornerDownRightIcon, InfoIcon, MessageIcon, XCircleIcon } from "@/components/ui/icons";
import { LineRow, SenderRow } from "./event-shell";
import { distinctNames, listOf } from "./participant";
import { useThreadActions } from "./thread-actions";
import { useRef } from "react";
import type { MessageState } from "@/lib/fold/message-actions";
import { isCopy } from "@/lib/conversation";
import { useMeOrNull } from "@/components/identity/me";
import { COMPOSER_ID } from "@/components/workspace/skip-links";
import { EditedMark, MessageEditor, MessageToolbar, PinnedLine, Reactions, Tombstone, useEditing, useMentionLabels } from "./message-actions";
import { offeredActions } from "./message-actions-model";

/** "→ Analyst" for a message addressed to agents or to one person; nothing for the whole channel. */
function Addressing({ event }: { event: StoredEvent }) {
  const nameOf = useNameOf();
  const targets = event.to.filter((t) => t.agent_id !== "user");
  if (targets.length === 0) return null;
  return (
    <span className="min-w-0 truncate text-[13px] text-fg-muted" aria-label={`to ${targets.map((t) => nameOf(t)).join(", ")}`}>
      <span aria-hidden="true">→ </span>
      {targets.map((t, i) => (
        <span key={t.agent_id} className="font-medium text-fg" title={t.agent_id}>
          {i > 0 ? ", " : ""}
          {nameOf(t)}
        </span>
      ))}
    </span>
  );
}

/** "↳ in reply to Project Manager: “excerpt”", a button that scrolls to the message it answers. */
function ReplyLink({ target, replyToId }: { target?: MessageRef; replyToId: string }) {
  const nameOf = useNameOf();
  const { jumpTo } = useThreadActions();
  if (!target) {
    return (
      <p className="mb-0.5 flex items-center gap-1 text-xs text-fg-subtle">
        <CornerDownRightIcon size={12} /> in reply to an earlier message
      </p>
    );
  }
  const who = nameOf(target.from);
  return (
    <button
      type="button"
      onClick={() => jumpTo(replyToId)}
      className="mb-0.5 flex max-w-full items-center gap-1 rounded text-left text-xs text-fg-muted hover:text-fg"
      aria-label={`In reply to ${who}: ${excerpt(target.text, 60)} (show the message)`}
    >
      <CornerDownRightIcon size={12} className="shrink-0 text-fg-subtle" />
      <span className="shrink-0">
        in reply to <span className="font-semibold">{who}</span>
      </span>
      <span className="min-w-0 truncate text-fg-subtle">· “{excerpt(target.text, 80)}”</span>
    </button>
  );
}

/** Under a question: waiting (with Reply for people), answered (with a link to the answer), or closed. */
function QuestionStatus({ question }: { question: QuestionView }) {
  const nameOf = useNameOf();
  const { replyTo, jumpTo } = useThreadActions();
  const answer = question.answer;
  if (answer) {
    return (
      <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-fg-muted">
        <StatusBadge tone="success" label="Answered">
          <CheckIcon size={11} strokeWidth={3} />
          Answered
        </StatusBadge>
        <button type="button" onClick={() => jumpTo(answer.id)} className="hover:text-fg hover:underline">
          by <span className="font-medium">{nameOf(answer.from)}</span> · show answer
        </button>
      </div>
    );
  }
  if (question.closed) {
    return (
      <div className="mt-1">
        <StatusBadge tone="neutral">No longer waiting — the task ended</StatusBadge>
      </div>
    );
  }
  if (!question.to_people) {
    const names = distinctNames(question.to, nameOf);
    const to = listOf(question.to.map((id) => names.get(id)!));
    return (
      <div className="mt-1" title={question.to.join(", ")}>
        <StatusBadge tone="warning" label={`Waiting for a reply from ${to}`}>
          <ClockIcon size={11} strokeWidth={2.5} />
          Waiting for a reply from {to}
        </StatusBadge>
      </div>
    );
  }
  return (
    <div className="mt-1.5 flex flex-wrap items-center gap-2">
      <StatusBadge tone="warning" label="Waiting for your answer">
        <ClockIcon size={11} strokeWidth={2.5} />
        Waiting for your answer
      </StatusBadge>
      <button
        type="button"
        onClick={() => replyTo(question.id)}
        className="inline-flex h-7 items-center gap-1.5 rounded-md bg-accent px-2.5 text-xs font-semibold text-accent-fg shadow-sm hover:brightness-110"
      >
        <CornerDownRightIcon size={13} />
        Answer
      </button>
    </div>
  );
}

/**
 * Under a message: "3 replies · last from Dana" opening its thread in the side pane, or, on
 * hover and focus, "Reply in thread" when it has none yet and no toolbar offers it (`hover`).
 */
function ThreadLink({ event, replies, hover }: { event: StoredEvent; replies?: MessageRef[]; hover: boolean }) {
  const nameOf = useNameOf();
  const { openThread } = useThreadActions();
  const open = () => openThread({ message_id: event.id });
  if (!replies?.length) {
    if (!hover) return null;
    return (
      <button
        type="button"
        onClick={open}
        className="mt-0.5 hidden items-center gap-1 rounded text-xs font-medium text-fg-muted hover:text-accent group-hover:inline-flex group-focus-within:inline-flex focus-visible:inline-flex"
      >
        <MessageIcon size={12} aria-hidden="true" /> Reply in thread
      </button>
    );
  }
  const last = replies[replies.length - 1]!;
  return (
    <button type="button" onClick={open} className="mt-1 inline-flex items-center gap-1.5 rounded text-xs hover:underline">
      <MessageIcon size={12} className="text-accent" aria-hidden="true" />
      <span className="font-semibold text-accent">
        {replies.length} {replies.length === 1 ? "reply" : "replies"}
      </span>
      <span className="text-fg-muted" title={last.from.agent_id}>
        · last from {nameOf(last.from)}
      </span>
    </button>
  );
}

/**
 * A person's or an agent's message: avatar, name, time and the text as sanitized markdown, its
 * @mentions drawn as names. With its state (`actions`, lib/fold/message-actions.ts): the current
 * text with "(edited)", a tombstone once deleted, reactions, "Pinned by …", and the actions the
 * person may take (components/events/message-actions.tsx), the text edited in place.
 */
export function ChatMessage({
  event,
  continued,
  question,
  replyTo,
  replies,
  actions,
}: {
  event: StoredEventOf<"chat.message">;
  continued: boolean;
  /** Set when the message expects a reply (lib/fold/questions.ts). */
  question?: QuestionView;
  /** The message it answers, when loaded. */
  replyTo?: MessageRef;
  /** People's replies in its thread, oldest first. */
  replies?: MessageRef[];
  /** Its state after reactions, edits, a delete and pins, where the list folded them. */
  actions?: MessageState;
}) {
  const p = event.payload;
  const nameOf = useNameOf();
  const personName = usePersonLabel();
  const name = nameOf(event.from);
  const me = useMeOrNull();
  const edit = useEditing(event.id);
  const moreButton = useRef<HTMLButtonElement>(null);
  const mentions = useMentionLabels(actions?.mentions ?? p.mentions);
  // After an edit the focus goes back where it came from: the composer (↑) or the message's menu.
  const endEdit = () => {
    const toComposer = edit.fromComposer;
    edit.stop();
    setTimeout(() => (toComposer ? document.getElementById(COMPOSER_ID) : moreButton.current)?.focus({ preventScroll: !toComposer }), 0);
  };
  const waitingForPeople = Boolean(question && question.to_people && !question.answer && !question.closed);
  const forPeople = event.to.some(isPeopleRecipient);
  const label = question ? `${p.inquiry === true ? "Oversight inquiry" : "Question"} from ${name}` : `Message from ${name}`;
  const headerExtra = (
    <>
      {!forPeople && <Addressing event={event} />}
      {p.inquiry === true && (
        <StatusBadge tone="agent" label="Oversight inquiry">
          Oversight inquiry
        </StatusBadge>
      )}
    </>
  );
  if (actions?.deleted) {
    return (
      <SenderRow event={event} continued={continued} label={`Deleted message from ${name}`} headerExtra={headerExtra}>
        <Tombstone>{replies?.length ? <ThreadLink event={event} replies={replies} hover={false} /> : null}</Tombstone>
      </SenderRow>
    );
  }
  const offered = actions && me ? offeredActions(actions, me, { copy: isCopy(event) }) : null;
  const editing = Boolean(actions && offered?.edit && edit.editing);
  return (
    <SenderRow
      event={event}
      continued={continued}
      label={label}
      className={
        waitingForPeople
          ? "border-l-[3px] border-warning bg-warning/[0.07] pl-[13px]! sm:pl-[17px]!"
          : actions?.pinned
            ? "bg-warning/[0.05] hover:bg-warning/[0.09]"
            : editing
              ? "bg-accent/[0.05]"
              : "hover:bg-hover/70"
      }
      headerExtra={headerExtra}
      toolbar={
        actions && offered && !editing ? <MessageToolbar event={event} state={actions} offered={offered} inChannel={edit.inChannel} onEdit={edit.start} moreRef={moreButton} /> : null
      }
    >
      {actions?.pinned && <PinnedLine pin={actions.pinned} />}
      {typeof p.reply_to === "string" && <ReplyLink target={replyTo} replyToId={p.reply_to} />}
      {editing && actions ? (
        <MessageEditor event={event} state={actions} onDone={endEdit} />
      ) : (
        <Foldable>
          <div className="text-msg text-fg" dir="auto">
            <Markdown text={actions?.text ?? p.text} mentions={mentions} suffix={actions?.edited ? <EditedMark state={actions} /> : undefined} />
          </div>
        </Foldable>
      )}
      {typeof event.meta?.stopped_by === "string" && <div className="mt-0.5 text-[11px] font-medium text-fg-muted">Stopped by {personName(event.meta.stopped_by)}</div>}
      {actions && <Reactions event={event} state={actions} />}
      {question ? (
        <QuestionStatus question={question} />
      ) : (
        p.expects_reply && <div className="mt-0.5 text-[11px] font-medium text-warning">Waiting for a reply</div>
      )}
      {/* A question that waits has one way to reply: its Answer button. */}
      {!waitingForPeople && <ThreadLink event={event} replies={replies} hover={!offered} />}
    </SenderRow>
  );
}

const LEVEL = {
  info: { icon: <InfoIcon size={14} />, cls: "text-fg-muted", iconCls: "text-info" },
  warning: { icon: <AlertIcon size={14} />, cls: "text-warning", iconCls: "text-warning" },
  error: { icon: <XCircleIcon size={14} />, cls: "text-danger", iconCls: "text-danger" },
} as const;

/** One line for a change to who may do what (`audit.change`, docs/identity.md), by whom. */
export function AuditLine({ event }: { event: StoredEventOf<"audit.change"> }) {
  const nameOf = useNameOf();
  return (
    <LineRow event={event} icon={<ShieldCheckIcon size={14} className="text-fg-muted" />} label="Access change">
      <span className="min-w-0 break-words text-fg-muted">
        <span className="font-medium text-fg" title={event.from.agent_id}>
          {nameOf(event.from)}
        </span>{" "}
        {event.payload.summary}
      </span>
    </LineRow>
  );
}

/** A system notice: one subtle line coloured by level (info, warning, error). */
export function ChatSystem({ event }: { event: StoredEventOf<"chat.system"> }) {
  const p = event.payload;
  const level = LEVEL[p.level ?? "info"];
  return (
    <LineRow event={event} icon={<span className={level.iconCls}>{level.icon}</span>} label={`System ${p.level ?? "info"}`}>
      <span className={`min-w-0 whitespace-pre-wrap break-words ${level.cls}`}>{p.text}</span>
    </LineRow>
  );
}
