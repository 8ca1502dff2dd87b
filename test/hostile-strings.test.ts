import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compileToJavaScript } from "../src/serve/compile.js";
import { generateFixture, startFixtureServer } from "./support/generated.js";

const scope = "it's:`tick`:${x}";
const moods = ["*/", "`${x}`", "'\"", "\u2028", "</script>"];
const dir = mkdtempSync(path.join(tmpdir(), "codegen-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("names and texts from the declaration stay inert data in generated code", () => {
  it("compiles to modules whose data holds the exact strings and nothing else", async () => {
    for (const file of await compileToJavaScript(await generateFixture("hostile-strings"))) {
      mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
      writeFileSync(path.join(dir, file.path), file.contents);
    }
    const api = await import(pathToFileURL(path.join(dir, "api.gen.js")).href);
    const index = await import(pathToFileURL(path.join(dir, "index.gen.js")).href);
    expect(Object.keys(api).sort()).toEqual(["index", "resources", "routes", "schemas", "securitySchemes"]);
    expect(Object.keys(index).sort()).toEqual([
      "createFetchHandler",
      "createMemoryHandlers",
      "createPostgresStore",
      "createRequestListener",
      "createServer",
      "isRefusal",
      "issueJwt",
      "migrate",
      "openMemoryStore",
      "openPostgresStore",
      "verifyJwt",
    ]);
    expect(api.schemas.NoteInput.properties.mood.enum).toEqual(moods);
    expect(api.schemas.NoteInput.properties.text.pattern).toBe("^[^*/`$]*$");
    expect(api.schemas.NoteInput.properties.mood.default).toBe("*/");
    const post = api.routes.find((r: { segments: unknown[] }) => r.segments.length === 1 && r.segments[0] === "notes");
    expect(post.methods.POST.security).toEqual([[{ scheme: "OAuth2PasswordBearer", scopes: [scope] }]]);
  });

  it("serves them: the scope grants access, the enum values round-trip", async () => {
    const server = await startFixtureServer("hostile-strings", [{ name: "ann", password: "pw", scopes: [scope] }]);
    try {
      const form = new URLSearchParams({ username: "ann", password: "pw", scope });
      const token = (await (await fetch(`${server.url}/token`, { method: "POST", body: form })).json()) as { access_token: string };
      for (const mood of moods) {
        const response = await fetch(`${server.url}/notes`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token.access_token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ text: "hi", mood }),
        });
        expect(response.status).toBe(201);
        expect(((await response.json()) as { mood: string }).mood).toBe(mood);
      }
      const refused = await fetch(`${server.url}/notes`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ text: "has */ in it" }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: "Invalid request", detail: { text: "must match the pattern ^[^*/`$]*$" } });
    } finally {
      await server.close();
    }
  });
});
