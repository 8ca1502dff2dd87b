// The URLs of the emitted security schemes lead to the endpoints that serve them, as OpenAPI
// reads them: a relative reference resolves against the server URL by RFC 3986 (so `/token` under
// `https://lending.example.org/v1` would leave the API's path), and the published 3.1 schema
// asks for an absolute URI (`format: uri`) where a server URL gives one.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, fixtureCases } from "../../support/fixtures.js";
import { servedUrl } from "../../../src/compile/expand/expand.js";

type Flow = Record<string, unknown>;
type Doc = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { securitySchemes?: Record<string, { flows?: Record<string, Flow> }> };
};

const documents = fixtureCases("valid").map((name): [string, Doc] => [
  name,
  parse(readFileSync(path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml"), "utf8")) as Doc,
]);

describe("security scheme URLs of the golden documents", () => {
  it("include fixtures whose token endpoint sits under a server with a path", () => {
    const served = documents.filter(([, doc]) => Object.values(doc.paths).some((item) => item["post"]?.["x-codegen-token-endpoint"]));
    expect(served.map(([name]) => name)).toEqual(expect.arrayContaining(["blog", "lending"]));
  });

  it.each(documents)("%s: the token endpoint's URL resolves to it under the first server, and is absolute where the server is", (_name, doc) => {
    const server = doc.servers[0]!.url;
    const urls = Object.values(doc.components?.securitySchemes ?? {}).flatMap((scheme) =>
      Object.values(scheme.flows ?? {}).flatMap((flow) =>
        ["authorizationUrl", "tokenUrl", "refreshUrl"].map((key) => flow[key]).filter((url) => typeof url === "string"),
      ),
    );
    if (/^https?:/.test(server)) for (const url of urls) expect(() => new URL(url as string), `${url as string} is an absolute URI`).not.toThrow();
    for (const [wirePath, item] of Object.entries(doc.paths)) {
      if (!item["post"]?.["x-codegen-token-endpoint"]) continue;
      const base = /^https?:/.test(server) ? server : new URL(server, "http://served.example").href;
      const endpoint = `${base.replace(/\/+$/, "")}${wirePath}`;
      expect(urls.map((url) => new URL(url as string, base).href)).toContain(endpoint);
    }
  });
});

describe("servedUrl", () => {
  it("joins a path the API serves to the first server, keeping the server's path", () => {
    expect(servedUrl("/token", "https://vet.example.com/api")).toBe("https://vet.example.com/api/token");
    expect(servedUrl("/token", "https://vet.example.com/api/")).toBe("https://vet.example.com/api/token");
    expect(servedUrl("/oauth/token", "/v1")).toBe("/v1/oauth/token");
    expect(servedUrl("/token", "/")).toBe("/token");
  });

  it("keeps absolute URLs, and paths when there is no server", () => {
    expect(servedUrl("https://login.example.com/token", "https://vet.example.com/api")).toBe("https://login.example.com/token");
    expect(servedUrl("//login.example.com/token", "https://vet.example.com/api")).toBe("//login.example.com/token");
    expect(servedUrl("/token", undefined)).toBe("/token");
  });
});
