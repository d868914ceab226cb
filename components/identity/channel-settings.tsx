"use client";
/**
 * `ChannelSettingsDialog`: who can see a channel (docs/identity.md, "Channels"): public or
 * private, and its members, with add (people of the workspace, registered agents) and remove. A
 * guest sees the members but changes nothing. People show their presence and a "Message" button
 * (docs/channels.md "Presence", "Direct messages"). In a channel with an entry agent, who answers
 * a new message (docs/channels.md "Who answers"): admins change it, everyone else reads it.
 * Every change is an `audit.change` in the channel.
 */
import { useId, useState } from "react";
import { useAgents } from "@/components/live/use-agents";
import { ApiRequestError } from "@/components/live/api";
import type { ThreadSummary } from "@/lib/api/types";
import { Button, inputClass } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Avatar } from "@/components/ui/avatar";
import { AvatarWithPresence } from "@/components/ui/presence-dot";
import { hueFor } from "@/components/events/participant";
import { usePresence } from "@/components/live/presence";
import { MessageButton } from "@/components/workspace/message-button";
import { useMe } from "./me";
import { useChannelMemberChange, useChannelMembers, usePeople, useSetVisibility } from "./api";
import { useChannelAnswers, useSetAnswers } from "@/components/live/workspace-channels";
import { useNameOf } from "@/components/events/use-sender-name";

export function ChannelSettingsDialog({ thread, open, onClose }: { thread: ThreadSummary; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title={`#${thread.name} settings`} description="Who can see this channel, its runs and its approvals." className="max-w-lg">
      {open && <ChannelSettings thread={thread} onClose={onClose} />}
    </Dialog>
  );
}

const errorText = (e: unknown) => (e instanceof ApiRequestError ? e.message : e ? "Something went wrong. Try again." : null);

function ChannelSettings({ thread, onClose }: { thread: ThreadSummary; onClose: () => void }) {
  const me = useMe();
  const manage = me.role !== "guest";
  const members = useChannelMembers(thread.id);
  const change = useChannelMemberChange(thread.id);
  const visibility = useSetVisibility(thread.id);
  const people = usePeople();
  const agents = useAgents();
  const isOnline = usePresence();
  const [pick, setPick] = useState("");
  const pickId = useId();
  const inChannel = new Set(members.data?.map((m) => m.member));
  const candidates = [
    ...(people.data ?? []).map((p) => ({ id: p.agent_id, label: p.name })),
    ...(agents.data ?? []).filter((a) => a.source !== "workspace").map((a) => ({ id: a.agent_id, label: `${a.name} (${a.agent_id})` })),
  ].filter((c) => !inChannel.has(c.id));
  const answersHere = useChannelAnswers(thread);
  const setAnswers = useSetAnswers(thread.id);
  const nameOf = useNameOf();
  const entryName = answersHere?.entry_agent ? nameOf({ agent_id: answersHere.entry_agent }) : null;
  const error = errorText(change.error) ?? errorText(visibility.error) ?? errorText(setAnswers.error);

  return (
    <div className="px-5 pb-5 pt-3">
      <fieldset disabled={!manage || visibility.isPending}>
        <legend className="mb-1.5 text-[13px] font-semibold">Visibility</legend>
        {(["public", "private"] as const).map((v) => (
          <label key={v} className="flex items-start gap-2 py-0.5 text-[13px]">
            <input type="radio" name="visibility" checked={thread.visibility === v} onChange={() => visibility.mutate(v)} className="mt-0.5" />
            <span>
              <span className="font-medium">{v === "public" ? "Public" : "Private"}</span>
              <span className="block text-xs text-fg-muted">
                {v === "public" ? "Every member of the workspace can see it (guests only if added)." : "Only its members can see it, its runs and its approvals."}
              </span>
            </span>
          </label>
        ))}
      </fieldset>

      {answersHere && entryName && (
        <fieldset disabled={me.role !== "admin" || setAnswers.isPending} className="mt-4">
          <legend className="mb-1.5 text-[13px] font-semibold">
            Who answers{me.role !== "admin" && <span className="font-normal text-fg-muted"> · an admin can change this</span>}
          </legend>
          {(["mentions", "every_message"] as const).map((v) => (
            <label key={v} className="flex items-start gap-2 py-0.5 text-[13px]">
              <input type="radio" name="answers" checked={answersHere.answers === v} onChange={() => setAnswers.mutate(v)} className="mt-0.5" />
              <span>
                <span className="font-medium">{v === "mentions" ? "Agents answer when @mentioned" : `${entryName} answers every message`}</span>
                <span className="block text-xs text-fg-muted">
                  {v === "mentions"
                    ? `People talk freely; @${entryName} or another agent, or a reply in a run’s thread, asks an agent.`
                    : `Every new message starts a run with ${entryName}; people can still send plain chat (Esc in the composer).`}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
      )}

      <h3 className="mb-1.5 mt-4 text-[13px] font-semibold">Members</h3>
      <ul className="max-h-56 divide-y divide-line overflow-y-auto text-[13px]" aria-label="Members">
        {members.data?.map((m) => (
          <li key={m.member} className="flex items-center gap-2 py-1.5">
            {m.member.startsWith("user:") ? (
              <AvatarWithPresence online={isOnline(m.member)} dot={9}>
                <Avatar name={m.name} hue={hueFor(m.member)} agent={false} size={24} />
              </AvatarWithPresence>
            ) : (
              <Avatar name={agents.data?.find((a) => a.agent_id === m.member)?.name ?? m.name} hue={hueFor(m.member)} agent size={24} />
            )}
            <span className="min-w-0 flex-1 truncate">
              {m.name}
              {m.member === me.agent_id && <span className="text-fg-muted"> (you)</span>}
            </span>
            {m.member.startsWith("user:") && m.member !== me.agent_id && <MessageButton with={m.member} name={m.name} compact onOpened={onClose} />}
            {(manage || m.member === me.agent_id) && (
              <Button onClick={() => change.mutate({ member: m.member, add: false })} disabled={change.isPending} aria-label={m.member === me.agent_id ? "Leave the channel" : `Remove ${m.name}`}>
                {m.member === me.agent_id ? "Leave" : "Remove"}
              </Button>
            )}
          </li>
        ))}
      </ul>
      {manage && (
        <form
          className="mt-3 flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (pick) change.mutate({ member: pick, add: true }, { onSuccess: () => setPick("") });
          }}
        >
          <div className="min-w-0 flex-1">
            <label htmlFor={pickId} className="mb-1 block text-xs font-semibold">
              Add a person or an agent
            </label>
            <select id={pickId} value={pick} onChange={(e) => setPick(e.target.value)} className={inputClass}>
              <option value="">Choose…</option>
              {candidates.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <Button type="submit" variant="primary" disabled={!pick || change.isPending}>
            Add
          </Button>
        </form>
      )}
      {error && (
        <p role="alert" className="mt-2 text-xs font-medium text-danger">
          {error}
        </p>
      )}
      <div className="mt-5 flex justify-end">
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      </div>
    </div>
  );
}
