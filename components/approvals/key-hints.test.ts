import { describe, expect, it } from "vitest";
import type { Decider } from "@/lib/approvers";
import { decidingKeys, mayDecideInInbox, sheetListsDecidingKeys } from "./key-hints";

const admin: Decider = { agent_id: "user:dana", role: "admin" };
const member: Decider = { agent_id: "user:morgan", role: "member" };
const held = { state: "pending" as const, approvers: ["role:admin"], requesters: ["user:morgan"], forbid_self_approval: false, arguments: { to: "user", text: "# Report" } };

describe("the inbox's deciding keys", () => {
  it("are shown to a person who may decide the selected approval: approve, reject and edit", () => {
    expect(decidingKeys("pending", held, admin).map((k) => `${k.key} ${k.does}`)).toEqual(["a approve", "r reject", "e edit arguments"]);
  });

  it("leave out edit when the approval has no arguments", () => {
    expect(decidingKeys("pending", { ...held, arguments: null }, admin).map((k) => k.key)).toEqual(["a", "r"]);
  });

  it("are not shown to a member who is not an approver, nor to the requester when self-approval is forbidden", () => {
    expect(decidingKeys("pending", held, member)).toEqual([]);
    expect(mayDecideInInbox(held, member)).toBe(false);
    const own = { ...held, approvers: "any" as const, requesters: ["user:dana"], forbid_self_approval: true };
    expect(decidingKeys("pending", own, admin)).toEqual([]);
    expect(decidingKeys("pending", own, member).map((k) => k.key)).toEqual(["a", "r", "e"]);
  });

  it("are not shown on Recently decided, with nothing selected, or for a decided approval", () => {
    expect(decidingKeys("decided", held, admin)).toEqual([]);
    expect(decidingKeys("pending", undefined, admin)).toEqual([]);
    expect(decidingKeys("pending", { ...held, state: "granted" }, admin)).toEqual([]);
  });
});

describe("the shortcut sheet's deciding keys", () => {
  it("are listed unless a pending approval the person may not decide is selected", () => {
    expect(sheetListsDecidingKeys(held, admin)).toBe(true);
    expect(sheetListsDecidingKeys(undefined, member)).toBe(true);
    expect(sheetListsDecidingKeys({ ...held, state: "rejected" }, member)).toBe(true);
    expect(sheetListsDecidingKeys(held, member)).toBe(false);
  });
});
