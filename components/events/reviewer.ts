/**
 * Who reviews a result submitted for review (task.progress `status: "in_review"`), read from the
 * progress message when the review task is not at hand (components/events/task-card.tsx).
 */

/**
 * The reviewer a progress message names: "Result submitted for review by QA Agent." → "QA Agent"
 * (the display name the server writes), or the id older runs wrote ("… by agent:qa-1." →
 * "agent:qa-1"); undefined when the message names nobody.
 */
export function reviewerOf(message: string | undefined): string | undefined {
  return /review(?:ed)? by (.+?)\.?$/i.exec(message?.trim() ?? "")?.[1]?.trim() || undefined;
}
