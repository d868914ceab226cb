import { describe, expect, it } from "vitest";
import { unreadCount } from "./read-marks";

describe("unreadCount", () => {
  const channel = { id: "thr_a", message_count: 7, kind: "channel" as const };
  it("counts from the further of this browser's mark and the server's", () => {
    expect(unreadCount({ ...channel, read: { seq: 10, count: 5 } }, {})).toBe(2);
    expect(unreadCount({ ...channel, read: { seq: 10, count: 5 } }, { thr_a: 6 })).toBe(1);
    expect(unreadCount({ ...channel, read: null }, { thr_a: 3 })).toBe(4);
  });
  it("shows nothing unread in a channel the person never read nor was marked for (made by an import or someone else)", () => {
    expect(unreadCount({ ...channel, read: null }, {})).toBe(0);
  });
  it("counts every message of a direct message until it is read", () => {
    expect(unreadCount({ ...channel, kind: "dm", read: null }, {})).toBe(7);
  });
});
