/** The process logger (pino). Level from LOG_LEVEL; JSON lines on stdout. */
import pino from "pino";

export const log = pino({ level: process.env.LOG_LEVEL ?? "info", base: { app: "clutch" } });
