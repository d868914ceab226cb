/**
 * Summarise a V8 CPU profile (from `node --cpu-prof`) by where the time went: self time per
 * package / area, and the top functions. Used to profile the benches (docs/benchmarks.md).
 *
 *   node --import tsx bench/_cpuprofile.ts <file.cpuprofile> [topN]
 */
import fs from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const file = process.argv[2];
if (!file) throw new Error("usage: bench/_cpuprofile.ts <file.cpuprofile> [topN]");
const top = Number(process.argv[3] ?? 25);
const prof = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));

function area(n: Node): string {
  const { url, functionName } = n.callFrame;
  if (!url) return functionName === "(garbage collector)" ? "GC" : functionName === "(idle)" ? "idle" : functionName === "(program)" ? "program (native, unattributed)" : `native: ${functionName || "?"}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const app = /\/work\/[^/]+\/(.+)$/.exec(url.replace("file://", ""));
  return app ? `app: ${app[1]!.split("/").slice(0, 2).join("/")}` : url;
}

const total = [...self.values()].reduce((a, b) => a + b, 0);
const areas = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const a = area(n);
  areas.set(a, (areas.get(a) ?? 0) + us);
  const f = `${n.callFrame.functionName || "(anonymous)"}  ${a}:${n.callFrame.lineNumber + 1}`;
  fns.set(f, (fns.get(f) ?? 0) + us);
}
const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled`);
console.log("\nself time by area:");
for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${pct(us)}  ${a}`);
console.log("\ntop functions (self):");
for (const [f, us] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${pct(us)}  ${f}`);
