"use client";
/**
 * `ForkDialog`: "Re-run from here" asks first (docs/channels.md "Forks"). It names the event the
 * new run is forked at, what is kept (the events up to it, and the tasks that had ended by then)
 * and what is done again (the tasks still open at that point, and whatever they go on to
 * delegate), and says that the channel stays as it is: the fork has its own thread and run view,
 * and can be compared with this run afterwards. An imported copy of a run never acts
 * (docs/identity.md "Imported runs are copies that never act"), so for one it says why it cannot
 * be re-run instead.
 */
import { useMemo } from "react";
import { isImportedCopy, type StoredEvent } from "@/lib/protocol";
import { nodesOf, type RunGraphState } from "@/lib/fold/run-graph";
import { TERMINAL_STATES } from "@/lib/fold/task-state";
import { useSenderName } from "@/components/events/use-sender-name";
import { useRunNameOf } from "./use-run-names";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ForkIcon } from "./icons";
import { summarize } from "./event-summary";

/** What a fork at an event keeps and re-runs, from the run's state after that event. */
export function forkPlan(state: RunGraphState): { rerun: { id: string; title: string; assignee: string | null }[]; kept: number } {
  const rerun: { id: string; title: string; assignee: string | null }[] = [];
  let kept = 0;
  for (const node of nodesOf(state)) {
    const t = node.task;
    if (!t) continue;
    if (TERMINAL_STATES.has(t.state)) kept++;
    else rerun.push({ id: node.id, title: t.title ?? "Untitled task", assignee: t.assignee ?? null });
  }
  return { rerun, kept };
}

function Assignee({ id }: { id: string }) {
  return <span className="font-medium text-fg">{useSenderName({ agent_id: id }).name}</span>;
}

/** The confirmation (see the file comment); `state` is the run after `event`, `count` events in. */
export function ForkDialog({
  event,
  state,
  count,
  forking,
  onConfirm,
  onClose,
}: {
  event: StoredEvent | null;
  state: RunGraphState | null;
  count: number;
  forking: boolean;
  onConfirm: (seq: number) => void;
  onClose: () => void;
}) {
  const plan = useMemo(() => (state ? forkPlan(state) : null), [state]);
  const from = useSenderName(event?.from ?? { agent_id: "" }).name;
  const nameOf = useRunNameOf();
  if (event && isImportedCopy(event)) {
    return (
      <Dialog open onClose={onClose} title="An imported copy cannot be re-run" className="max-w-lg">
        <div className="space-y-3 px-5 pb-5 text-[13.5px]">
          <p>
            This run was imported from a file as a copy: it is there to replay and compare, and it never starts work or decides anything, so it cannot continue from an event.
          </p>
          <p className="text-fg-muted">To continue the original, re-run it from its own run page. An admin can restore a file as a live run by importing it without “Import a copy”.</p>
          <div className="flex justify-end pt-1">
            <Button variant="primary" onClick={onClose} autoFocus>
              OK
            </Button>
          </div>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog open={event !== null} onClose={onClose} title={event ? `Re-run from event #${event.seq}?` : "Re-run"} className="max-w-lg">
      {event && plan && (
        <form
          className="space-y-3 px-5 pb-5 text-[13.5px]"
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm(event.seq);
          }}
        >
          <p className="rounded-md border border-line bg-sunken/60 px-3 py-2 text-[13px]">
            <span className="font-mono text-[12px] text-fg-subtle">#{event.seq}</span> <span className="font-medium">{from}</span>: <span className="text-fg-muted">{summarize(event, nameOf)}</span>
          </p>
          <p>
            A new run starts from here. It keeps the {count} event{count === 1 ? "" : "s"} up to this one
            {plan.kept ? `, with the ${plan.kept} task${plan.kept === 1 ? "" : "s"} that had ended` : ""}, and does the rest again, live:
          </p>
          {plan.rerun.length ? (
            <ul className="list-disc space-y-0.5 pl-5" aria-label="Done again">
              {plan.rerun.map((t) => (
                <li key={t.id}>
                  {t.title}
                  {t.assignee && (
                    <>
                      {" "}
                      <span className="text-fg-muted">by</span> <Assignee id={t.assignee} />
                    </>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-fg-muted">Every task had ended by this point: the new run holds the same work, and nothing is done again.</p>
          )}
          <p className="text-fg-muted">
            The channel stays as it is: the new run has its own thread and run view, and you can compare it with this run afterwards. Agents may ask for approvals again.
          </p>
          <div className="flex justify-end gap-2 pt-1">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button variant="primary" type="submit" disabled={forking} autoFocus>
              <ForkIcon size={14} /> {forking ? "Starting…" : "Re-run from here"}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
