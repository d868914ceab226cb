/**
 * Where a LangGraph agent's graph runs (docs/adapters.md "LangGraph"): in this process (a compiled
 * `@langchain/langgraph` graph a workspace module exports), or on a LangGraph server reached with
 * `@langchain/langgraph-sdk`. Both give the driver (graph.ts) the same two things: the state of the
 * task's thread, and a stream of `[namespace, mode, data]` chunks (`updates`, `custom` and
 * `messages` modes, subgraphs included) for starting, resuming or carrying on the thread. A
 * `messages` chunk's data is `[message, metadata]`: an AI message chunk a node's chat model
 * streamed (an AIMessageChunk here; on a server, stream mode `messages-tuple`, its JSON), or a
 * node's whole output message.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
// LangGraph's packages load when a graph first runs, not with every server and test (the import of
// @langchain/langgraph alone takes half a second).
import type { BaseCheckpointSaver, CompiledStateGraph } from "@langchain/langgraph";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { Client } from "@langchain/langgraph-sdk";
import { log } from "../../log";

/** An interrupt waiting in the thread: its id and the value the node passed to `interrupt()`. */
export interface Interrupt {
  id?: string;
  value?: unknown;
}

export interface ThreadState {
  /** The thread has run (a checkpoint exists). */
  started: boolean;
  /** Nodes still to run (a thread stopped between nodes). */
  next: string[];
  interrupts: Interrupt[];
  values: unknown;
}

/** How a stream begins: the request's text as the first message, a resume value, or carrying on. */
export type StreamInput = { start: string } | { resume: unknown } | null;
export type Chunk = [namespace: string[], mode: "updates" | "custom" | "messages", data: unknown];

export interface GraphHost {
  state(): Promise<ThreadState>;
  stream(input: StreamInput, signal: AbortSignal): AsyncIterable<Chunk>;
}

/** Clutch's ids a graph may read from its config (`configurable.clutch`). */
export interface ClutchIds {
  run_id: string;
  task_id: string;
  thread_id: string;
}

type Graph = CompiledStateGraph<Record<string, unknown>, Record<string, unknown>, string>;
const graphs = new Map<string, Promise<Graph>>();
let generation = 0;

/** Where an in-process graph without a checkpointer of its own keeps its threads. */
export type CheckpointerSource = () => Promise<BaseCheckpointSaver>;

const postgresSavers = new Map<string, Promise<PostgresSaver>>();

/**
 * The checkpointer of in-process graphs on PostgreSQL: LangGraph's PostgresSaver on the
 * database at `url`, in the schema `langgraph` (its tables made by its own `setup()`, once per
 * process), shared by every graph of the process. An interrupted thread is then resumed where
 * it stopped after a restart, on any node.
 */
export function postgresCheckpointer(url: string): CheckpointerSource {
  return () => {
    let saver = postgresSavers.get(url);
    if (!saver) {
      saver = import("@langchain/langgraph-checkpoint-postgres").then(async ({ PostgresSaver }) => {
        const s = PostgresSaver.fromConnString(url, { schema: "langgraph" });
        await s.setup();
        return s;
      });
      saver.catch(() => postgresSavers.delete(url));
      postgresSavers.set(url, saver);
    }
    return saver;
  };
}

/**
 * Forget the graphs loaded so far: the next load imports each module afresh, as a new process
 * would (a restart, in tests).
 */
export function forgetLoadedGraphs(): void {
  graphs.clear();
  generation++;
}

/**
 * The graph `module` (relative to `dir`) exports as `exportName`, loaded once per process; without
 * a checkpointer of its own it gets `checkpointer()` (PostgreSQL: `postgresCheckpointer`), else an
 * in-memory MemorySaver, with which a restart runs an interrupted task again. Rejects when the
 * module or the export is missing (and is tried again on the next call).
 */
export function loadGraph(dir: string, module: string, exportName: string, checkpointer?: CheckpointerSource): Promise<Graph> {
  const file = path.resolve(dir, module);
  const key = `${file}#${exportName}`;
  let g = graphs.get(key);
  if (!g) {
    const url = pathToFileURL(file).href + (generation ? `?load=${generation}` : "");
    g = import(url).then(async (mod: Record<string, unknown>) => {
      const graph = mod[exportName] as Graph | undefined;
      if (!graph || typeof (graph as { stream?: unknown }).stream !== "function") throw new Error(`${module} has no compiled LangGraph graph exported as "${exportName}"`);
      if (!graph.checkpointer) graph.checkpointer = checkpointer ? await checkpointer() : new (await import("@langchain/langgraph")).MemorySaver();
      return graph;
    });
    g.catch(() => graphs.delete(key));
    graphs.set(key, g);
  }
  return g;
}

/** A compiled graph in this process, on LangGraph thread `thread_id`. */
export function localHost(graph: Graph, thread_id: string, clutch: ClutchIds): GraphHost {
  const config = { configurable: { thread_id, clutch } };
  return {
    async state() {
      const s = await graph.getState(config);
      return { started: Boolean(s.metadata), next: [...s.next], interrupts: (s.tasks as { interrupts?: Interrupt[] }[]).flatMap((t) => t.interrupts ?? []), values: s.values };
    },
    async *stream(input, signal) {
      const [{ Command }, { HumanMessage }] = await Promise.all([import("@langchain/langgraph"), import("@langchain/core/messages")]);
      const arg = input === null ? null : "start" in input ? { messages: [new HumanMessage(input.start)] } : new Command({ resume: input.resume });
      const stream = await graph.stream(arg as never, { ...config, streamMode: ["updates", "custom", "messages"], subgraphs: true, signal });
      yield* stream as AsyncIterable<Chunk>;
    },
  };
}

/** A UUID for `key` (LangGraph servers name threads by UUID): the same key, the same thread. */
export function threadUuid(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Assistant `assistant_id` of the LangGraph server at `url` (`headers` sent with every call), on
 * the thread named after `key`. The thread is created by its first run; a cancelled stream cancels
 * the server's run.
 */
export function serverHost(url: string, headers: Record<string, string>, assistant_id: string, key: string, clutch: ClutchIds): GraphHost {
  let made: Promise<Client> | null = null;
  const sdk = () => (made ??= import("@langchain/langgraph-sdk").then(({ Client }) => new Client({ apiUrl: url, apiKey: null, defaultHeaders: headers })));
  const thread = threadUuid(key);
  return {
    async state() {
      try {
        const s = await (await sdk()).threads.getState(thread);
        return {
          started: Boolean(s.checkpoint ?? s.created_at),
          next: s.next ?? [],
          interrupts: (s.tasks ?? []).flatMap((t) => (t.interrupts ?? []) as Interrupt[]),
          values: s.values,
        };
      } catch (err) {
        if ((err as { status?: number }).status === 404) return { started: false, next: [], interrupts: [], values: null };
        throw err;
      }
    },
    async *stream(input, signal) {
      let run_id: string | null = null;
      const client = await sdk();
      const stream = client.runs.stream(thread, assistant_id, {
        ...(input && "start" in input ? { input: { messages: [{ type: "human", content: input.start }] } } : {}),
        ...(input && "resume" in input ? { command: { resume: input.resume } } : {}),
        config: { configurable: { clutch } },
        streamMode: ["updates", "custom", "messages-tuple"],
        streamSubgraphs: true,
        ifNotExists: "create",
        signal,
        onRunCreated: (meta) => {
          run_id = meta.run_id;
        },
      });
      try {
        for await (const part of stream as AsyncIterable<{ event: string; data: unknown }>) {
          const [mode, ...ns] = part.event.split("|");
          if (mode === "error") throw new Error(typeof part.data === "object" && part.data && "message" in part.data ? String(part.data.message) : JSON.stringify(part.data));
          // `messages-tuple` streams as events named `messages`.
          if (mode === "updates" || mode === "custom" || mode === "messages") yield [ns, mode, part.data];
        }
      } finally {
        if (signal.aborted && run_id) {
          await client.runs.cancel(thread, run_id).catch((err: unknown) => log.warn({ err: (err as Error).message, url, run_id }, "LangGraph server: cancelling the run failed"));
        }
      }
    },
  };
}
