// Preload for `prisma migrate deploy`: its WASM engine leaves a long timer running after it
// has finished (~10 s). Unref timers of a second or more so the process exits
// as soon as its work is done; short timers keep their normal behaviour.
const original = global.setTimeout;
global.setTimeout = function (fn, ms, ...args) {
  const t = original(fn, ms, ...args);
  if (typeof ms === "number" && ms >= 1000 && t && typeof t.unref === "function") t.unref();
  return t;
};
