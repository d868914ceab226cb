import { describe, expect, it } from "vitest";
import { reviewerOf } from "./reviewer";

describe("reviewerOf", () => {
  it("reads the reviewer's display name the server writes", () => {
    expect(reviewerOf("Result submitted for review by QA Agent.")).toBe("QA Agent");
    expect(reviewerOf("Reviewed by Analyst (analyst-2)")).toBe("Analyst (analyst-2)");
  });

  it("reads the id older runs wrote", () => {
    expect(reviewerOf("Result submitted for review by agent:qa-1.")).toBe("agent:qa-1");
  });

  it("names nobody when the message does not", () => {
    expect(reviewerOf(undefined)).toBeUndefined();
    expect(reviewerOf("Working on it")).toBeUndefined();
  });
});
