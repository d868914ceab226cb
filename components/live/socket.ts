/**
 * The browser's one Socket.IO connection, same origin, path /socket.io.
 * socket.io-client reconnects by itself; components/live/subscriptions.ts re-subscribes on
 * every (re)connect with the last seq held, which fills exactly the gap.
 */
import { io, type Socket } from "socket.io-client";
import type { ClientEvents, ServerEvents } from "@/lib/realtime/contract";

/** The socket typed with lib/realtime/contract.ts. */
export type ClutchSocket = Socket<ServerEvents, ClientEvents>;

let socket: ClutchSocket | null = null;

/** The shared socket, created (and connecting) on first use. Browser only. */
export function getSocket(): ClutchSocket {
  if (!socket) {
    socket = io({
      path: "/socket.io",
      transports: ["websocket", "polling"],
      reconnectionDelay: 300,
      reconnectionDelayMax: 3000,
    });
  }
  return socket;
}
