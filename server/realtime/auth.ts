/**
 * The one authentication hook for socket handshakes. Every connection passes through
 * `authenticate`; it admits everyone for now as an anonymous person. Real authentication (tokens,
 * sessions; Clutch Protocol §6) goes here, without touching the gateway.
 */
export interface Principal {
  /** `user:<id>` for people, `agent:<id>` for agents. */
  id: string;
  kind: "human" | "agent";
}

/** Decide who a handshake is. Throw an Error with a message to refuse the connection. */
export async function authenticate(handshake: { headers: Record<string, unknown>; auth: Record<string, unknown> }): Promise<Principal> {
  void handshake;
  return { id: "user:anonymous", kind: "human" };
}
