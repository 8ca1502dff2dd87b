// The /docs page in a real browser (Debian's chromium through playwright-core, no download): it
// renders the blog API's document from the server's own /openapi.json, with no asset from
// elsewhere, and lists its operations (http-behaviour "Beyond the API's own routes").

import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT } from "./support.js";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

let served: RunningServer;
beforeAll(async () => {
  served = await startFixtureServer("blog");
}, START_TIMEOUT);
afterAll(async () => {
  await served?.close();
});

describe.skipIf(!existsSync(CHROMIUM) && process.env.CI === undefined)("the /docs page in chromium", () => {
  it(
    "lists the blog API's operations, loading nothing from another origin",
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        page.on("request", (request) => requested.push(request.url()));
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(error.message));
        await page.goto(`${served.url}/docs`);
        await page.waitForSelector("details.operation", { timeout: 10_000 });
        expect(await page.locator("h1").textContent()).toBe("Blog API");
        const ids = await page.locator("details.operation").evaluateAll((nodes) => nodes.map((node) => node.id));
        for (const id of ["listArticles", "createArticle", "getArticle", "deleteArticle", "listAuthors", "getIndex", "issueToken"]) expect(ids).toContain(id);
        expect(errors).toEqual([]);
        expect(requested.every((url) => url.startsWith(served.url))).toBe(true);
      } finally {
        await browser.close();
      }
    },
    START_TIMEOUT,
  );
});
