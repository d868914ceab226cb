"use client";
/**
 * `RunScreen`: `/runs/:run_id`, to watch a run's task tree live, replay it event by event and
 * fork it from any point.
 *
 * - Data: every event of the run, folded (components/run/run-events-store.ts), live over the
 *   socket; the run's summary, lineage and forks (`GET /api/runs/:id`). While a large run's
 *   events still load, the graph is drawn from the run's task projection so it shows at once.
 * - Position n (events shown): "live" follows the newest event; any move back replays. The
 *   graph, the side panel, the timeline and the run's tokens, cost and time (run-usage.tsx) all
 *   show the state after events 1..n, from the same events (`RunTimeline.seek`); the run node
 *   and the task nodes say the status at n in the channel's words, for the person reading
 *   ("Waiting on you" while a question or an approval is open at n; graph-model.ts). `?at=<seq>` deep-links a position; the URL follows the scrubber
 *   (replaceState, debounced).
 * - Keyboard anywhere on the page: Space play/pause, ←/→ one event (Shift: ten), Home/End,
 *   Escape closes the task panel.
 * - Fork ("Re-run from here") asks first (fork-dialog.tsx), then posts
 *   `POST /api/runs/:id/fork { at_seq }` and opens the new run.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { TaskSummary } from "@/lib/api/types";
import { graphFromTasks, type RunGraphState } from "@/lib/fold/run-graph";
import type { TaskView } from "@/lib/fold/task-state";
import { ApiRequestError } from "@/components/live/api";
import { useMe } from "@/components/identity/me";
import { usePersonLabel } from "@/components/identity/names";
import { isTextField } from "@/components/ui/use-hotkeys";
import { useShortcutSection, type ShortcutSection } from "@/components/ui/shortcuts";
import { fetchRunDetail, forkRun } from "./api";
import { computeStructure, StableLayout, type ExpandState, type FrameInput } from "./graph-model";
import { ImportRunDialog } from "./import-dialog";
import { ReplayTimeline } from "./replay-timeline";
import { ForkDialog } from "./fork-dialog";
import { RunGraph } from "./run-graph";
import { RunEventsStore } from "./run-events-store";
import { autogenNamesOf, withAutogenNames } from "./run-names";
import { RunNamesContext } from "./use-run-names";
import { RunPageHeader } from "./run-page-header";
import { RunUsageBar, useRunUsage } from "./run-usage";
import { TaskPanel } from "./task-panel";
import { WorkflowSteps } from "./workflow-steps";
import { workflowProgress } from "@/lib/fold/workflow";
import { usePlayback, type Speed } from "./use-playback";

/** Where the replay stands: following the newest event, at n events, or at a seq still loading. */
type Cursor = { kind: "live" } | { kind: "at"; n: number } | { kind: "seq"; seq: number };

function toTaskView(t: TaskSummary, run_id: string, thread_id: string): TaskView {
  return { ...t, run_id, thread_id, error: null, open_questions: [], open_approvals: [], last_seq: 0, imported: false };
}

/** A run page's section of the shortcut sheet (components/ui/shortcuts.tsx). */
export const RUN_KEYS: ShortcutSection = {
  id: "run",
  title: "A run",
  rows: [
    { keys: ["Space"], does: "Play or pause the replay" },
    { keys: ["←", "→"], does: "One event back or forward" },
    { keys: ["Shift+←", "Shift+→"], does: "Ten events back or forward" },
    { keys: ["Home", "End"], does: "The first or the last event" },
    { keys: ["Esc"], does: "Close the selected task" },
  ],
};

/** The run page (see the file comment). */
export function RunScreen({ runId, initialAt }: { runId: string; initialAt: number | null }) {
  const router = useRouter();
  const [store] = useState(() => new RunEventsStore(runId));
  useSyncExternalStore(store.subscribe, store.getVersion, () => 0);
  const timeline = store.timeline;
  const total = timeline.length;
  const head = timeline.head;
  const status = store.status;

  const detailQ = useQuery({
    queryKey: ["run-detail", runId],
    queryFn: () => fetchRunDetail(runId),
    refetchInterval: 30_000,
    refetchOnWindowFocus: true,
  });
  const detail = detailQ.data;
  // Events load beside the summary: for a large run the summary's tasks draw the graph while
  // the events still stream in.
  useEffect(() => store.start(), [store]);

  // The projection's tasks: the tree at once, before a large run's events are all loaded.
  const projection = useMemo<RunGraphState | null>(
    () => (detail && detail.tasks.length ? graphFromTasks(detail.tasks.map((t) => toTaskView(t, detail.run.run_id, detail.run.thread_id))) : null),
    [detail],
  );

  // --- position -------------------------------------------------------------------------
  const [cursor, setCursor] = useState<Cursor>(() => (initialAt !== null ? { kind: "seq", seq: initialAt } : { kind: "live" }));
  const seqReady = cursor.kind === "seq" && (status.done || timeline.lastSeq >= cursor.seq);
  const position = cursor.kind === "live" ? total : cursor.kind === "at" ? Math.min(cursor.n, total) : seqReady ? timeline.countAtSeq(cursor.seq) : total;
  const replaying = cursor.kind !== "live";
  const pendingSeq = cursor.kind === "seq" && !seqReady;

  const seek = useCallback(
    (n: number) => {
      const t = store.timeline.length;
      const c = Math.max(0, Math.min(t, Math.round(n)));
      // Back at the newest event of a finished or running run: follow it again.
      setCursor(c >= t && store.status.done ? { kind: "live" } : { kind: "at", n: c });
    },
    [store],
  );

  // The URL follows the position (?at=<seq>), debounced.
  const atSeq = replaying && position > 0 && !pendingSeq ? timeline.events[position - 1]!.seq : null;
  useEffect(() => {
    if (pendingSeq) return;
    const t = setTimeout(() => {
      const url = new URL(window.location.href);
      if (atSeq === null) url.searchParams.delete("at");
      else url.searchParams.set("at", String(atSeq));
      if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
    }, 250);
    return () => clearTimeout(t);
  }, [atSeq, pendingSeq]);

  // --- playback -------------------------------------------------------------------------
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<Speed>(10);
  usePlayback({
    playing,
    speed,
    events: timeline.events,
    total,
    position: () => position,
    step: (n) => setCursor({ kind: "at", n }),
    onEnd: () => {
      setPlaying(false);
      if (store.status.done) setCursor({ kind: "live" });
    },
  });
  const play = useCallback(() => {
    if (position >= total) setCursor({ kind: "at", n: 0 });
    else if (cursor.kind === "live") setCursor({ kind: "at", n: position });
    setPlaying(true);
  }, [position, total, cursor.kind]);
  const pause = useCallback(() => setPlaying(false), []);
  const onTimelineSeek = useCallback(
    (n: number) => {
      setPlaying(false);
      seek(n);
    },
    [seek],
  );

  // --- selection, expansion ---------------------------------------------------------------
  const [selected, setSelected] = useState<string | null>(null);
  const [expand, setExpand] = useState<ExpandState>(() => ({ collapsed: new Map(), moreOpen: new Set() }));
  const onSelect = useCallback((id: string) => setSelected((s) => (s === id ? null : id)), []);
  const onToggle = useCallback(
    (id: string) =>
      setExpand((e) => {
        const collapsed = new Map(e.collapsed);
        collapsed.set(id, !(collapsed.get(id) ?? false));
        return { ...e, collapsed };
      }),
    [],
  );
  const onOpenMore = useCallback((parent: string) => setExpand((e) => ({ ...e, moreOpen: new Set(e.moreOpen).add(parent) })), []);

  // --- graph: structure from the tree (projection while loading), stable layout ------------
  const useProjection = !status.done && projection !== null && projection.task_total > head.task_total;
  const treeSource = useProjection ? projection : store.treeHead;
  const [layout] = useState(() => new StableLayout());
  const structure = useMemo(() => computeStructure(treeSource, expand), [treeSource, expand]);
  // Decisions made on first sight stick (live growth never hides what is shown).
  const layoutVersion = useMemo(() => {
    for (const [id, c] of structure.decided) (expand.collapsed as Map<string, boolean>).set(id, c);
    layout.update(structure);
    return layout.version;
  }, [structure, expand, layout]);
  const shown = useProjection && !replaying ? projection : timeline.seek(position);
  // A workflow run's steps, at the same position as the graph.
  const workflow = useMemo(() => workflowProgress(timeline.events, position), [timeline.events, position]);

  const title = detail?.run.title ?? "Run";
  // Tokens, cost and time at the same position as the graph (lib/fold/usage.ts).
  const { usage, badges } = useRunUsage(timeline.events, position);
  // The words on the nodes are for the person reading ("Waiting on you").
  const me = useMe();
  // AutoGen-stream agents by the names their events give them, as the channel shows them (run-names.ts).
  // The timeline's list only grows in place: its length says when there is more to read.
  const autogenNames = useMemo(() => autogenNamesOf(timeline.events, total), [timeline.events, total]);
  const personLabel = usePersonLabel();
  const nameOf = useMemo(() => withAutogenNames(personLabel, autogenNames), [personLabel, autogenNames]);
  const serverStatus = detail?.run ?? null;
  const input = useMemo<FrameInput>(
    () => ({ title, selected, onSelect, onToggle, onOpenMore, usage: badges, person: me, nameOf, serverStatus }),
    [title, selected, onSelect, onToggle, onOpenMore, badges, me, nameOf, serverStatus],
  );
  const [userMoved, setUserMoved] = useState(false);
  const onUserMove = useCallback(() => setUserMoved(true), []);

  // --- fork, import ------------------------------------------------------------------------
  const fork = useMutation({
    mutationFn: (seq: number) => forkRun(runId, seq),
    onSuccess: (run) => router.push(`/runs/${encodeURIComponent(run.run_id)}`),
  });
  // "Re-run from here" asks first (ForkDialog), with the run as it stood after that event.
  const [forkAt, setForkAt] = useState<number | null>(null);
  const onFork = useCallback((seq: number) => setForkAt(seq), []);
  const forkIndex = forkAt === null ? -1 : timeline.events.findIndex((e) => e.seq === forkAt);
  const forkEvent = forkIndex >= 0 ? timeline.events[forkIndex]! : null;
  const forkState = useMemo(() => (forkIndex >= 0 ? timeline.seek(forkIndex + 1) : null), [timeline, forkIndex]);
  const [importing, setImporting] = useState(false);

  useShortcutSection(RUN_KEYS);
  // --- keyboard ------------------------------------------------------------------------
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || isTextField(e.target)) return;
      if (document.querySelector("dialog[open]")) return;
      const onRange = e.target instanceof HTMLInputElement && e.target.type === "range";
      switch (e.key) {
        case " ":
          e.preventDefault();
          if (playing) pause();
          else play();
          break;
        case "ArrowLeft":
        case "ArrowRight":
          if (onRange) return; // the slider moves itself
          e.preventDefault();
          setPlaying(false);
          seek(position + (e.key === "ArrowLeft" ? -1 : 1) * (e.shiftKey ? 10 : 1));
          break;
        case "Home":
        case "End":
          if (onRange) return;
          e.preventDefault();
          setPlaying(false);
          seek(e.key === "Home" ? 0 : store.timeline.length);
          break;
        case "Escape":
          setSelected(null);
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [playing, play, pause, seek, position, store]);

  useEffect(() => {
    document.title = `${title} · Run · Clutch`;
  }, [title]);

  // --- render ------------------------------------------------------------------------------
  const missing = (detailQ.error instanceof ApiRequestError && detailQ.error.status === 404) || (status.missing && !detail);
  if (missing) {
    return (
      <div className="flex h-full flex-col">
        <RunPageHeader runId={runId} detail={undefined} head={null} onImport={() => setImporting(true)} />
        <div className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center">
          <h2 className="text-lg font-semibold">Run not found</h2>
          <p className="max-w-sm text-sm text-fg-muted">
            No run <code className="font-mono text-[12px]">{runId}</code> on this server. A run appears with its first task.
          </p>
          <Link href="/" className="mt-2 text-sm font-medium text-accent hover:underline">
            Go to your channels
          </Link>
        </div>
        <ImportRunDialog open={importing} onClose={() => setImporting(false)} />
      </div>
    );
  }

  const graphReady = shown.task_total > 0;
  const loading = status.done || status.error ? null : { loaded: total, expected: detail ? Math.max(total, detail.run.event_count) : null };
  return (
    <RunNamesContext.Provider value={autogenNames}>
      <div className="flex h-full min-h-0 flex-col">
        <RunPageHeader runId={runId} detail={detail} head={status.done ? head : null} onImport={() => setImporting(true)} />
        {fork.isError && (
          <div role="alert" className="flex items-center gap-2 border-b border-danger/30 bg-danger/[0.06] px-4 py-1.5 text-[13px] text-danger">
            <span className="min-w-0 flex-1">Could not start the new run: {fork.error.message}</span>
            <button type="button" onClick={() => fork.reset()} className="shrink-0 font-medium hover:underline">
              Dismiss
            </button>
          </div>
        )}
        <RunUsageBar usage={usage} />
        {workflow && <WorkflowSteps progress={workflow} onSelectTask={setSelected} />}
        <div className="relative flex min-h-0 flex-1">
          <div className="relative min-w-0 flex-1" data-graph-at={shown.last_seq} data-graph-count={shown.count}>
            {graphReady ? (
              <RunGraph
                structure={structure}
                layout={layout}
                layoutVersion={layoutVersion}
                state={shown}
                input={input}
                followNew={!userMoved && !replaying}
                userMoved={userMoved}
                onUserMove={onUserMove}
              />
            ) : (
              <div className="flex h-full items-center justify-center bg-sunken p-6 text-center text-sm text-fg-muted" role="status">
                {status.error ? (
                  <span>
                    Couldn’t load the run: {status.error}{" "}
                    <button type="button" className="font-medium text-accent hover:underline" onClick={() => store.retry()}>
                      Try again
                    </button>
                  </span>
                ) : !status.done && total === 0 ? (
                  "Loading the run…"
                ) : position === 0 && total > 0 ? (
                  "Event 0: nothing has happened yet. Press play or move the timeline."
                ) : (
                  "No task yet at this point of the run."
                )}
              </div>
            )}
          </div>
          {selected && (
            <div className="max-md:fixed max-md:inset-0 max-md:z-40 max-md:bg-canvas md:relative md:flex">
              <TaskPanel
                taskId={selected}
                state={timeline.seek(position)}
                events={timeline.events}
                onClose={() => setSelected(null)}
                onFork={onFork}
                onSelectTask={setSelected}
                forking={fork.isPending}
                live={!replaying}
                usage={usage.tasks.get(selected)}
                currency={usage.currency}
              />
            </div>
          )}
        </div>
        <ReplayTimeline
          events={timeline.events}
          total={total}
          position={position}
          following={!replaying}
          live={head.run_state === "running" || !status.done}
          loading={loading}
          playing={playing}
          speed={speed}
          forking={fork.isPending}
          onSeek={onTimelineSeek}
          onPlay={play}
          onPause={pause}
          onSpeed={setSpeed}
          onFork={onFork}
          listHeight="clamp(96px, 24vh, 240px)"
        />
        <ImportRunDialog open={importing} onClose={() => setImporting(false)} defaultThreadId={detail?.run.thread_id} />
        <ForkDialog
          event={forkEvent}
          state={forkState}
          count={forkIndex + 1}
          forking={fork.isPending}
          onConfirm={(seq) => fork.mutate(seq, { onSettled: () => setForkAt(null) })}
          onClose={() => setForkAt(null)}
        />
      </div>
    </RunNamesContext.Provider>
  );
}
