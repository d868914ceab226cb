"use client";
/**
 * `RunGraph`: the React Flow canvas of a run. Takes the structure and stable layout
 * (components/run/graph-model.ts) and the state at event N, and draws the frame at N. Nodes are
 * not draggable (positions are the layout's, stable across live updates and scrubbing); the
 * canvas pans and zooms. While the person has not moved the view, it follows new nodes with a
 * short fit animation (the nodes themselves never move).
 */
import "@xyflow/react/dist/style.css";
import "./run-graph.css";
import { useEffect, useMemo, useRef, useState } from "react";
import { Background, BackgroundVariant, Controls, MiniMap, ReactFlow, getViewportForBounds, useReactFlow, useStore, type Node, type Rect } from "@xyflow/react";
import type { RunGraphState } from "@/lib/fold/run-graph";
import { EDGE_TYPES, NODE_TYPES } from "./flow-nodes";
import { frameAt, newFrameCache, RUN_NODE_ID, SIZE, type FrameInput, type XY, type StableLayout, type Structure, type TaskNodeData } from "./graph-model";
import { stateStyle } from "./task-style";

const FIT = { padding: 0.18, maxZoom: 1, minZoom: 0.05 } as const;
/** Below this zoom a card's text is unreadable: a first view starts at it instead. */
const READABLE_ZOOM = 0.6;

/**
 * Fits the view to the whole laid-out tree (every node the run has so far, not only those that
 * exist at event N, so replay fills in a still picture): at once on the first frame, then with
 * a short animation whenever the tree grows, until the person pans or zooms themselves.
 */
function FitToTree({ bounds, top, follow, moved }: { bounds: Rect | null; top: XY | null; follow: boolean; moved: boolean }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const last = useRef<{ bounds: Rect | null; width: number; height: number } | null>(null);
  useEffect(() => {
    if (!bounds || !width || !height) return;
    const prev = last.current;
    last.current = { bounds, width, height };
    // The tree grew: follow it while live. The canvas changed size (a rotated phone): fit again
    // unless the person placed the view themselves.
    if (prev) {
      const grew = prev.bounds !== bounds;
      const resized = prev.width !== width || prev.height !== height;
      if (!((grew && follow) || (resized && !moved))) return;
    }
    let vp = getViewportForBounds(bounds, width, height, FIT.minZoom, FIT.maxZoom, FIT.padding);
    // Too wide to read whole: start readable at the top of the tree, centred on the run (the
    // minimap and "fit view" give the overview).
    if (vp.zoom < READABLE_ZOOM && top) {
      const zoom = READABLE_ZOOM;
      vp = { zoom, x: width / 2 - (top.x + SIZE.run.w / 2) * zoom, y: 24 - top.y * zoom };
    }
    void flow.setViewport(vp, prev ? { duration: 250 } : undefined);
  }, [bounds, top, width, height, follow, moved, flow]);
  return null;
}

/**
 * Pans (never zooms) by the least needed to bring the selected node into view, e.g. when the
 * side panel narrows the canvas.
 */
function KeepSelectedInView({ selected, layout }: { selected: string | null; layout: StableLayout }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  useEffect(() => {
    if (!selected || !width || !height) return;
    const p = layout.get(selected);
    if (!p) return;
    // After a refit of the tree to the new canvas size (FitToTree) has played.
    const t = setTimeout(() => {
      const { x, y, zoom } = flow.getViewport();
      const m = 16;
      const left = p.x * zoom + x;
      const top = p.y * zoom + y;
      const right = left + SIZE.task.w * zoom;
      const bottom = top + SIZE.task.h * zoom;
      let dx = 0;
      let dy = 0;
      if (right > width - m) dx = width - m - right;
      if (left + dx < m) dx = m - left;
      if (bottom > height - m) dy = height - m - bottom;
      if (top + dy < m) dy = m - top;
      if (dx || dy) void flow.setViewport({ x: x + dx, y: y + dy, zoom }, { duration: 200 });
    }, 300);
    return () => clearTimeout(t);
  }, [selected, width, height, layout, flow]);
  return null;
}

function minimapColor(n: Node): string {
  if (n.type === "task") return stateStyle((n.data as TaskNodeData).node.task?.state ?? "pending").color;
  if (n.type === "run") return "var(--c-accent)";
  return "var(--c-line-strong)";
}

/** The DAG at event N (see the file comment). */
export function RunGraph({
  structure,
  layout,
  layoutVersion,
  state,
  input,
  followNew,
  userMoved,
  onUserMove,
}: {
  structure: Structure;
  layout: StableLayout;
  /** Changes when the layout placed new nodes. */
  layoutVersion: number;
  state: RunGraphState;
  input: FrameInput;
  /** Fit the view to new nodes (live, and the person has not moved it). */
  followNew: boolean;
  /** The person panned or zoomed. */
  userMoved: boolean;
  onUserMove: () => void;
}) {
  const bounds = useMemo<Rect | null>(() => {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const n of structure.nodes) {
      const p = layout.get(n.id);
      if (!p) continue;
      const sz = SIZE[n.kind];
      x0 = Math.min(x0, p.x);
      y0 = Math.min(y0, p.y);
      x1 = Math.max(x1, p.x + sz.w);
      y1 = Math.max(y1, p.y + sz.h);
    }
    return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [structure, layout, layoutVersion]);
  const top = layout.get(RUN_NODE_ID) ?? null;
  const [cache] = useState(newFrameCache);
  const { nodes, edges } = useMemo(
    () => frameAt(structure, layout, state, input, cache),
    // layoutVersion stands for the layout's content.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [structure, layout, layoutVersion, state, input, cache],
  );
  return (
    <ReactFlow
      className="run-flow"
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      edgeTypes={EDGE_TYPES}
      minZoom={0.05}
      maxZoom={2}
      nodesDraggable={false}
      nodesConnectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      elementsSelectable={false}
      // The page's keys are the replay's (Space plays and pauses): React Flow's own key bindings
      // (Space to pan, Backspace to delete, Shift to select) would swallow them in a read-only graph.
      panActivationKeyCode={null}
      deleteKeyCode={null}
      selectionKeyCode={null}
      multiSelectionKeyCode={null}
      onlyRenderVisibleElements={nodes.length > 120}
      // A real pan or zoom by the person (a click on a node starts no move; a programmatic one has no event).
      onMove={(e) => {
        if (e) onUserMove();
      }}
      aria-label="Task graph"
    >
      <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} />
      <Controls showInteractive={false} position="bottom-left" fitViewOptions={FIT} />
      {nodes.length > 8 && bounds && bounds.width < bounds.height * 6 && <MiniMap pannable zoomable position="bottom-right" nodeColor={minimapColor} nodeBorderRadius={6} className="max-md:hidden!" />}
      <FitToTree bounds={bounds} top={top} follow={followNew} moved={userMoved} />
      <KeepSelectedInView selected={input.selected} layout={layout} />
    </ReactFlow>
  );
}
