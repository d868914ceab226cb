/**
 * The one request the example's playbooks know, and what pm-1 says to any other: the built-in
 * model is a scripted stand-in that plays this example only; a real model answers the rest.
 */
import { connectModelHelp } from "@/server/agents/models/connect";

/** The example request, as the README gives it. */
export const EXAMPLE_REQUEST = "Analyze last quarter's sales trends";

/**
 * True when `text` asks for the example: it names sales, the last quarter (last, previous,
 * latest, past, prior or fourth quarter, or Q4) and an analysis (analyze, analyse, analysis or
 * trend). "Analyze last quarter's sales", "analyse Q4 sales trends" and "What were the sales
 * trends last quarter?" are; "Which product category had the highest profit in 2016?" is not.
 */
export function isExampleRequest(text: string): boolean {
  const t = text.toLowerCase();
  const sales = /\bsales\b/.test(t);
  const lastQuarter = /\b(last|previous|latest|past|prior|fourth|4th)\s+quarter|\bq4\b/.test(t);
  const analysis = /\banaly[sz]|\btrend/.test(t);
  return sales && lastQuarter && analysis;
}

/** pm-1's message to a person who asked for something else: what the built-in model knows, how to connect a real one. */
export function outsideTheExample(agent_id: string, asked: string): string {
  return [
    `I can't answer that. I run on Clutch's built-in model, a scripted stand-in with no language model behind it: it knows only the example request, *${EXAMPLE_REQUEST}*, and plays this team through it. I have not worked on your request${asked ? ` ("${asked}")` : ""}.`,
    "",
    ...connectModelHelp(agent_id),
    "",
    `Or write *${EXAMPLE_REQUEST}* to see the example.`,
  ].join("\n");
}
