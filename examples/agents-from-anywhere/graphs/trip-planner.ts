/**
 * planner-1's LangGraph graph (examples/agents-from-anywhere/README.md): plans a business trip.
 * Scripted so it runs without a model; a real graph would call one in its nodes. Clutch runs it
 * through its LangGraph driver (docs/adapters.md "LangGraph"), which turns each part into events:
 *   policy    a subgraph (a subtask in the run view) that streams progress and reads the policy
 *   ask       interrupt({ question }): a question to the person, resumed with the answer
 *   book      interrupt({ delegate }): a subtask for travel-1, an A2A agent, resumed with its result
 *   approve   interrupt({ approval }): an approval in the channel, resumed with the decision
 *   summarize the last message: the task's result
 */
import { END, interrupt, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";

const text = (m: BaseMessage | undefined) => (typeof m?.content === "string" ? m.content : "");
const said = (messages: BaseMessage[], prefix: string) => text(messages.find((m) => text(m).startsWith(prefix))).slice(prefix.length).trim();

const policy = new StateGraph(MessagesAnnotation)
  .addNode("read_policy", async (_state, config: LangGraphRunnableConfig) => {
    config.writer?.("Reading the travel policy");
    return { messages: [new AIMessage("Policy: economy class on flights under 6 hours, booked at least 7 days ahead.")] };
  })
  .addEdge(START, "read_policy")
  .addEdge("read_policy", END)
  .compile();

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("policy", policy)
  .addNode("ask", async () => {
    const answer = interrupt({ question: "Where and when are you travelling?" }) as string;
    return { messages: [new AIMessage(`Trip: ${answer}`)] };
  })
  .addNode("book", async (state) => {
    const trip = said(state.messages, "Trip:");
    const booking = interrupt({ delegate: { agent: "travel-1", title: `Book the flight: ${trip}`, instructions: `Book a flight: ${trip}` } }) as { summary?: string; report_markdown?: string; error?: string };
    return { messages: [new AIMessage(booking.error ? `Flight: not booked (${booking.error})` : `Flight: ${booking.report_markdown ?? booking.summary ?? "booked"}`)] };
  })
  .addNode("approve", async (state) => {
    const decision = interrupt({ approval: "Send the trip plan to finance", preview: said(state.messages, "Flight:") }) as { approved: boolean; comment?: string };
    return { messages: [new AIMessage(decision.approved ? "Finance: sent for reimbursement." : `Finance: not sent (${decision.comment ?? "rejected"}).`)] };
  })
  .addNode("summarize", async (state) => {
    const lines = ["Policy:", "Trip:", "Flight:", "Finance:"].map((p) => `- **${p.slice(0, -1)}**: ${said(state.messages, p)}`);
    const approved = said(state.messages, "Finance:").startsWith("sent");
    const headline = `Your trip (${said(state.messages, "Trip:")}) is planned: the flight is booked${approved ? " and the plan is with finance" : ""}.`;
    return { messages: [new AIMessage(`${headline}\n\n${lines.join("\n")}`)] };
  })
  .addEdge(START, "policy")
  .addEdge("policy", "ask")
  .addEdge("ask", "book")
  .addEdge("book", "approve")
  .addEdge("approve", "summarize")
  .addEdge("summarize", END)
  .compile();
