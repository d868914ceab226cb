import { describe, expect, it } from "vitest";
import { sameSigningKeys } from "./agent-card";

const k1 = { kid: "k1", alg: "ed25519", public_key: "A".repeat(43) };
const k2 = { kid: "k2", alg: "ed25519", public_key: "B".repeat(43) };

describe("sameSigningKeys", () => {
  it("is true for the same keys whatever the order of their fields (a card read back from jsonb) or of the list", () => {
    const fromJsonb = { alg: "ed25519", kid: "k1", public_key: "A".repeat(43) };
    expect(JSON.stringify([k1])).not.toBe(JSON.stringify([fromJsonb]));
    expect(sameSigningKeys([fromJsonb], [k1])).toBe(true);
    expect(sameSigningKeys([k1, k2], [k2, k1])).toBe(true);
    expect(sameSigningKeys(undefined, [])).toBe(true);
  });

  it("is false when a key is replaced, added, removed or not a key at all", () => {
    expect(sameSigningKeys([k1], [{ ...k1, public_key: "C".repeat(43) }])).toBe(false);
    expect(sameSigningKeys([k1], [{ ...k1, kid: "k9" }])).toBe(false);
    expect(sameSigningKeys([k1], [k1, k2])).toBe(false);
    expect(sameSigningKeys([k1], undefined)).toBe(false);
    expect(sameSigningKeys([k1], [])).toBe(false);
    expect(sameSigningKeys([k1], "k1")).toBe(false);
    expect(sameSigningKeys([k1], [null])).toBe(false);
  });
});
