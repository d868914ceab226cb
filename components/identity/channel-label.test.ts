/**
 * How a person reads a thread's name (docs/channels.md "One name per agent"): a channel as
 * "#sales", a direct message by the other party's name, never its stored `dm-…` name.
 */
import { describe, expect, it } from "vitest";
import { channelLabel, channelPlace, dmOtherParty, type NamedThread } from "./channel-label";

const ME = "user:ada";
const NAMES: Record<string, string> = { "agent:pm-1": "Project Manager", "user:ada": "Ada Lovelace", "user:grace": "Grace Hopper" };
const nameOf = (id: string) => NAMES[id];

const sales: NamedThread = { kind: "channel", name: "sales", dm_between: [] };
const dm = (...between: string[]): NamedThread => ({ kind: "dm", name: "dm-35f747arcpbw", dm_between: between.sort() });

describe("channelLabel", () => {
  it("names a channel by its name", () => {
    expect(channelLabel(sales, ME, nameOf)).toBe("#sales");
    expect(channelPlace(sales, ME, nameOf)).toBe("in #sales");
  });
  it("names a direct message with an agent by the agent's display name", () => {
    expect(channelLabel(dm(ME, "agent:pm-1"), ME, nameOf)).toBe("Project Manager");
    expect(channelPlace(dm(ME, "agent:pm-1"), ME, nameOf)).toBe("in the direct message with Project Manager");
  });
  it("names a direct message with a person by that person's name, for each of the two", () => {
    expect(channelLabel(dm(ME, "user:grace"), ME, nameOf)).toBe("Grace Hopper");
    expect(channelLabel(dm(ME, "user:grace"), "user:grace", nameOf)).toBe("Ada Lovelace");
  });
  it("reads 'Direct message' when the other party is not known, never the stored name", () => {
    expect(channelLabel(dm(ME, "user:gone"), ME, nameOf)).toBe("Direct message");
    expect(channelPlace(dm(ME, "user:gone"), ME, nameOf)).toBe("in a direct message");
    expect(channelLabel(dm(ME, "user:blank"), ME, () => "  ")).toBe("Direct message");
  });
  it("finds the other party of a direct message; a channel has none", () => {
    expect(dmOtherParty(dm(ME, "agent:pm-1"), ME)).toBe("agent:pm-1");
    expect(dmOtherParty(dm(ME), ME)).toBe(ME);
    expect(dmOtherParty(sales, ME)).toBeNull();
  });
});
