/**
 * The browser's one Socket.IO connection, same origin, path /socket.io.
 * socket.io-client reconnects by itself; components/live/subscriptions.ts re-subscribes on
 * every (re)connect with the last seq held, which fills exactly the gap.
 *
 * The server disconnects a socket whose credential stopped working (`access.ended`, then
 * `io server disconnect`: its session was signed out, here or elsewhere, or ended by a password
 * change; docs/identity.md "Live connections"), and socket.io-client does not reconnect then by
 * itself. The browser asks who it is now: a cookie that still proves someone (this browser
 * changed the password and holds the new session) connects again; one that does not goes to
 * sign-in, as every 401 does (components/live/api.ts).
 */
import { io, type Socket } from "socket.io-client";
import type { ClientEvents, ServerEvents } from "@/lib/realtime/contract";
import { apiRequest } from "./api";

/** The socket typed with lib/realtime/contract.ts. */
export type ClutchSocket = Socket<ServerEvents, ClientEvents>;

let socket: ClutchSocket | null = null;

/** The shared socket, created (and connecting) on first use. Browser only. */
export function getSocket(): ClutchSocket {
  if (!socket) {
    socket = io({
      path: "/socket.io",
      // Events in frames, several per message (lib/realtime/contract.ts).
      auth: { frames: true },
      transports: ["websocket", "polling"],
      reconnectionDelay: 300,
      reconnectionDelayMax: 3000,
    });
    const s = socket;
    // A 401 here leads to sign-in (apiRequest); a cookie that still works connects again.
    const afterAccessEnded = () => void apiRequest("/api/me").then(() => s.connect(), () => {});
    s.on("disconnect", (reason) => {
      if (reason === "io server disconnect") afterAccessEnded();
    });
    // A handshake refused (the session ended while the socket was reconnecting): not retried by itself.
    s.on("connect_error", () => {
      if (!s.active) void apiRequest("/api/me").catch(() => {});
    });
  }
  return socket;
}
