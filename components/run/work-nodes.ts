/**
 * Where a task's work was done (docs/deploy.md "Where agents run"): the nodes named by its
 * agents' events (`meta.node`, CLUTCH_NODE_NAME), in the order they first appear. Two or more
 * when its turns were taken by different nodes (any node takes the next turn), or its node
 * stopped and another took it over.
 */
import type { StoredEvent } from "@/lib/protocol";

/** The distinct `meta.node` of the events of task `task_id` in `events` (seq order), first seen first. */
export function workNodes(events: readonly StoredEvent[], task_id: string): string[] {
  const nodes: string[] = [];
  for (const e of events) {
    if (e.task_id !== task_id) continue;
    const node = e.meta?.node;
    if (typeof node === "string" && node && !nodes.includes(node)) nodes.push(node);
  }
  return nodes;
}
