/** Id helpers (Clutch Protocol Appendix B: prefix + ULID). */
import { describe, expect, it } from "vitest";
import { ID_PREFIX, artifactRef, isId, newId, type IdKind } from "./ids";

const KINDS = Object.keys(ID_PREFIX) as IdKind[];

describe("newId", () => {
  it.each(KINDS)("makes a %s id that isId recognises", (kind) => {
    const id = newId(kind);
    expect(id.startsWith(ID_PREFIX[kind])).toBe(true);
    expect(id).toHaveLength(ID_PREFIX[kind].length + 26);
    expect(isId(kind, id)).toBe(true);
  });

  it("makes unique, strictly increasing ids within one millisecond", () => {
    const ids = Array.from({ length: 2000 }, () => newId("message"));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("isId", () => {
  const ulid = "01JD0Q8X9YABCDEFGHJKMNPQRS";

  it("accepts prefix + ULID", () => {
    expect(isId("thread", `thr_${ulid}`)).toBe(true);
  });

  it("rejects the wrong prefix, case, length or alphabet", () => {
    expect(isId("run", `thr_${ulid}`)).toBe(false);
    expect(isId("message", `msg_${ulid.toLowerCase()}`)).toBe(false);
    expect(isId("message", `msg_${ulid.slice(1)}`)).toBe(false);
    expect(isId("message", `msg_${ulid}0`)).toBe(false);
    for (const bad of ["I", "L", "O", "U"]) expect(isId("message", `msg_${bad}${ulid.slice(1)}`)).toBe(false);
    expect(isId("message", ` msg_${ulid}`)).toBe(false);
    expect(isId("task", "task_01HX...")).toBe(false);
  });
});

it("artifactRef prefixes artifact:", () => {
  expect(artifactRef("report_456")).toBe("artifact:report_456");
});
