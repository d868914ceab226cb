"use client";
/**
 * `EventErrorBoundary`: wraps each event renderer and falls back to the JSON view, so one broken
 * event never takes the channel down.
 */
import { Component, type ReactNode } from "react";
import type { StoredEvent } from "@/lib/protocol";
import { JsonView } from "@/components/ui/json-view";

interface Props {
  event: StoredEvent;
  children: ReactNode;
}

/** Catches a renderer's error and shows the event as JSON instead. */
export class EventErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown) {
    console.warn(`[clutch] renderer failed for seq ${this.props.event?.seq}:`, error);
  }

  render() {
    if (!this.state.failed) return this.props.children;
    const ev = this.props.event;
    return (
      <article
        data-seq={ev?.seq}
        aria-label={`Event ${String(ev?.type)} (shown as JSON)`}
        className="flex gap-2.5 px-4 py-1 text-[13px] sm:px-5"
      >
        <div className="w-9 shrink-0" />
        <div className="min-w-0 flex-1">
          <p className="text-[11px] text-warning">
            Could not display this {String(ev?.type)} event; showing it as JSON (#{String(ev?.seq)}).
          </p>
          <JsonView value={ev} label="Event JSON" />
        </div>
      </article>
    );
  }
}
