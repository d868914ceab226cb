import { describe, expect, it } from "vitest";
import { runLinkLabel } from "./run-label";

describe("runLinkLabel", () => {
  it("reads a run by its number and title", () => {
    expect(runLinkLabel({ run_number: 12, title: "Analyze sales" })).toBe("#12 Analyze sales");
    expect(runLinkLabel({ run_number: 13, title: "Analyze sales (fork at #46)" })).toBe("#13 Analyze sales (fork at #46)");
  });

  it("says Untitled run without a title, and leaves out an unknown number", () => {
    expect(runLinkLabel({ run_number: 4, title: null })).toBe("#4 Untitled run");
    expect(runLinkLabel({ run_number: 0, title: "Analyze sales" })).toBe("Analyze sales");
    expect(runLinkLabel({})).toBe("Untitled run");
  });
});
