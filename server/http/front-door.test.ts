import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, unreadableUrl } from "./front-door";

describe("unreadableUrl", () => {
  it("passes ordinary and encoded URLs", () => {
    expect(unreadableUrl("/api/agents/agent%3Aken/heartbeat")).toBeNull();
    expect(unreadableUrl("/api/threads/thr_1/events?after=3&limit=10")).toBeNull();
    expect(unreadableUrl("/c/general?q=a+b%20c")).toBeNull();
    expect(unreadableUrl("/api/artifacts/artifact%3A100%25")).toBeNull();
  });

  it("refuses what cannot be decoded, naming where", () => {
    expect(unreadableUrl("/api/threads/%ZZ")).toMatch(/^the path has an invalid percent-encoding/);
    expect(unreadableUrl("/api/threads/%C0%AE%C0%AE")).toMatch(/^the path has an invalid percent-encoding/);
    expect(unreadableUrl("/api/threads?x=%E0%A4%A")).toMatch(/^the query has an invalid percent-encoding/);
  });

  it("refuses a NUL in the path or the query", () => {
    expect(unreadableUrl("/api/threads/thr%00x/events")).toMatch(/^the path contains a NUL character/);
    expect(unreadableUrl("/api/approvals?thread_id=%00")).toMatch(/^the query contains a NUL character/);
  });
});

describe("contentSecurityPolicy", () => {
  it("lets images load from the origin, data: and the configured hosts over https", () => {
    expect(contentSecurityPolicy([])).toBe("img-src 'self' data: blob:");
    expect(contentSecurityPolicy(["images.example.com"])).toBe("img-src 'self' data: blob: https://images.example.com");
  });
});
