/** Choosing a model: specs, environment variables, and the errors a person sees when one is incomplete. */
import { describe, expect, it } from "vitest";
import { modelEnvVar, modelSpecFromEnv, ModelSpecSchema, parseModelSpec, resolveModel } from "./index";

describe("model specs", () => {
  it("defaults to the built-in model", () => {
    expect(resolveModel().provider).toBe("clutch.builtin");
    expect(resolveModel("builtin", {}).specificationVersion).toBe("v3");
    expect(modelSpecFromEnv({}, "agent:pm-1")).toEqual({ provider: "builtin" });
  });

  it("reads CLUTCH_MODEL for all agents and CLUTCH_MODEL_<AGENT> for one", () => {
    const env = { CLUTCH_MODEL: "anthropic:claude-x", CLUTCH_MODEL_QA_1: "ollama:llama3.1:8b", CLUTCH_MODEL_PM_1: "builtin" };
    expect(modelEnvVar("agent:qa-1")).toBe("CLUTCH_MODEL_QA_1");
    expect(modelEnvVar("data.cleaner-2")).toBe("CLUTCH_MODEL_DATA_CLEANER_2");
    expect(modelSpecFromEnv(env, "agent:analyst-1")).toEqual({ provider: "anthropic", model: "claude-x" });
    expect(modelSpecFromEnv(env, "qa-1")).toEqual({ provider: "openai-compatible", model: "llama3.1:8b" });
    expect(modelSpecFromEnv(env, "agent:pm-1")).toEqual({ provider: "builtin" });
  });

  it("accepts a JSON spec", () => {
    expect(parseModelSpec('{"provider":"openai-compatible","baseURL":"http://127.0.0.1:8000/v1","model":"qwen"}')).toEqual({
      provider: "openai-compatible",
      baseURL: "http://127.0.0.1:8000/v1",
      model: "qwen",
    });
    expect(ModelSpecSchema.safeParse({ provider: "openai-compatible", baseURL: "not a url" }).success).toBe(false);
  });

  it("builds the OpenAI-compatible and Anthropic models from spec and environment", () => {
    const oa = resolveModel({ provider: "openai-compatible" }, { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", OPENAI_MODEL: "llama3.1" });
    expect(oa.modelId).toBe("llama3.1");
    expect(oa.provider).toMatch(/^openai-compatible/);
    expect(resolveModel({ provider: "openai-compatible", model: "gpt-x" }, { OPENAI_API_KEY: "sk" }).modelId).toBe("gpt-x");
    const an = resolveModel({ provider: "anthropic", model: "claude-x" }, { ANTHROPIC_API_KEY: "k" });
    expect(an.modelId).toBe("claude-x");
    expect(an.provider).toMatch(/^anthropic/);
  });

  it("says what to set when something is missing or wrong", () => {
    expect(() => resolveModel({ provider: "openai-compatible", model: "m" }, {})).toThrow(/OPENAI_BASE_URL/);
    expect(() => resolveModel({ provider: "openai-compatible" }, { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })).toThrow(/OPENAI_MODEL/);
    expect(() => resolveModel({ provider: "anthropic", model: "claude-x" }, {})).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => resolveModel({ provider: "anthropic" }, { ANTHROPIC_API_KEY: "k" })).toThrow(/ANTHROPIC_MODEL/);
    expect(() => modelSpecFromEnv({ CLUTCH_MODEL_PM_1: "gpt4" }, "agent:pm-1")).toThrow(/CLUTCH_MODEL_PM_1="gpt4" is not a model/);
    expect(() => parseModelSpec("{oops")).toThrow(/not valid JSON/);
    expect(() => resolveModel({ provider: "mystery" } as never)).toThrow(/invalid model spec/);
    try {
      resolveModel({ provider: "anthropic", model: "x" }, {});
    } catch (e) {
      expect((e as { code: string }).code).toBe("MODEL_CONFIG");
    }
  });
});
