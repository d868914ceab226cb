import { describe, expect, it } from "vitest";
import { approvalWhy } from "./approval-model";

describe("approvalWhy", () => {
  it("gives the policy's reason in its own words", () => {
    expect(approvalWhy("approve-final-report", "the report reaches the channel only after an admin has read it")).toBe(
      "the report reaches the channel only after an admin has read it",
    );
    expect(approvalWhy(null, "the agent asks for a person's approval")).toBe("the agent asks for a person's approval");
  });

  it("makes the rule readable when the policy gives no reason, the id being for the tooltip", () => {
    expect(approvalWhy("approve-final-report", "rule approve-final-report")).toBe("the policy rule “approve final report”");
    expect(approvalWhy("approve_process.data")).toBe("the policy rule “approve process data”");
    expect(approvalWhy("approve-final-report", "  ")).toBe("the policy rule “approve final report”");
  });

  it("says nothing when neither is known", () => {
    expect(approvalWhy(null)).toBeNull();
    expect(approvalWhy(undefined, null)).toBeNull();
  });
});
