import { describe, expect, it } from "vitest";
import { imageHostsProblem, parseImageHosts } from "@/lib/image-hosts";
import { imageAllowed } from "./image-source";

const origin = "http://localhost:3000";

describe("imageAllowed", () => {
  it("loads the app's own images", () => {
    expect(imageAllowed("/api/artifacts/artifact%3A01", origin, [])).toBe(true);
    expect(imageAllowed("http://localhost:3000/logo.png", origin, [])).toBe(true);
    expect(imageAllowed("data:image/png;base64,iVBORw0KGgo=", origin, [])).toBe(true);
  });

  it("refuses remote images unless their host is configured, and only over https", () => {
    expect(imageAllowed("https://tracker.example/pixel.gif?u=1", origin, [])).toBe(false);
    expect(imageAllowed("https://images.example.com/a.png", origin, ["images.example.com"])).toBe(true);
    expect(imageAllowed("http://images.example.com/a.png", origin, ["images.example.com"])).toBe(false);
    expect(imageAllowed("https://evil.images.example.com/a.png", origin, ["images.example.com"])).toBe(false);
    expect(imageAllowed("http://localhost:3001/x.png", origin, [])).toBe(false);
  });

  it("refuses data URLs that are not images, and what does not parse", () => {
    expect(imageAllowed("data:text/html;base64,PHNjcmlwdD4=", origin, [])).toBe(false);
    expect(imageAllowed("http://[::1", origin, [])).toBe(false);
  });
});

describe("parseImageHosts", () => {
  it("splits, trims and lowercases", () => {
    expect(parseImageHosts(" Images.Example.com, ,cdn.example.org ")).toEqual(["images.example.com", "cdn.example.org"]);
    expect(parseImageHosts(undefined)).toEqual([]);
  });

  it("names an entry that is not a host name, which would match no image", () => {
    expect(imageHostsProblem(" Images.Example.com, cdn.example.org ")).toBeNull();
    expect(imageHostsProblem(undefined)).toBeNull();
    expect(imageHostsProblem("https://images.example.com")).toBe('CLUTCH_IMAGE_HOSTS: "https://images.example.com" is not a host name; give host names only, comma-separated, e.g. images.example.com,cdn.example.org');
    for (const bad of ["images.example.com/pics", "*.example.com", "images.example.com:8443", "-bad.example.com"]) expect(imageHostsProblem(`cdn.example.org, ${bad}`)).toContain(`"${bad}"`);
  });
});
