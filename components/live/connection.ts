/**
 * `useConnectionStatus`: whether the live socket is connected, for the "Reconnecting…" banner.
 */
import { useSyncExternalStore } from "react";
import { getSocket } from "./socket";

/** State of the live connection. */
export type ConnectionStatus = "connecting" | "connected" | "disconnected";

let everConnected = false;

function subscribe(onChange: () => void): () => void {
  const s = getSocket();
  const onConnect = () => {
    everConnected = true;
    onChange();
  };
  s.on("connect", onConnect);
  s.on("disconnect", onChange);
  s.io.on("reconnect_attempt", onChange);
  return () => {
    s.off("connect", onConnect);
    s.off("disconnect", onChange);
    s.io.off("reconnect_attempt", onChange);
  };
}

function snapshot(): ConnectionStatus {
  const s = getSocket();
  if (s.connected) {
    everConnected = true;
    return "connected";
  }
  return everConnected ? "disconnected" : "connecting";
}

/** "connecting" before the first connect, then "connected" / "disconnected". */
export function useConnectionStatus(): ConnectionStatus {
  return useSyncExternalStore(subscribe, snapshot, () => "connecting");
}
