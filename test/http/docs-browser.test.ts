// The /docs page in a real browser (Debian's chromium through playwright-core, no download), one
// launch for the file: the lending fixture and a clinic-sized API as generated servers serve them
// on 127.0.0.1, read as a reader sees them (http-behaviour "The /docs page"); a hostile document
// and a thousand-operation one answered in place of openapi.json.

import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { startDeclaredServer, START_TIMEOUT } from "./support.js";
import type { Json } from "./support.js";

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

const CLINIC = `codegen: 1
info:
  title: Clinic API
  version: "2.1.0"
  description: |
    A veterinary clinic: **owners**, their *pets* and \`appointments\`.

    - Book an appointment for a pet
    - Confirm, cancel or complete it

    The [booking guide](https://clinic.example.org/guide) tells more.
servers:
  - https://clinic.example.org/api
auth:
  - guard: authorizationCode
    name: ClinicLogin
    authorizationUrl: https://login.clinic.example.org/authorize
    tokenUrl: https://login.clinic.example.org/token
    scopes:
      clinic:read: See owners, pets and appointments
      clinic:write: Manage owners and pets
      appointments:write: Book and change appointments
resources:
  owners:
    description: People who bring their pets to the clinic.
    fields:
      name: { type: string, required: true, minLength: 1, maxLength: 100 }
      email: { type: string, format: email, required: true }
      phone: { type: string, pattern: "^[+0-9 ]{6,20}$" }
    access: { read: [clinic:read], write: [clinic:write] }
    operations: [list, get, create, replace, update, delete]
  pets:
    fields:
      name: { type: string, required: true }
      species: { type: string, enum: [dog, cat, rabbit, bird], required: true }
      ownerId: { type: integer, ref: owners, required: true, filter: true }
      bornOn: { type: string, format: date }
    access: { read: [clinic:read], write: [clinic:write] }
    operations: [list, get, create, update, delete]
  appointments:
    fields:
      petId: { type: integer, ref: pets, required: true, filter: true }
      startsAt: { type: string, format: date-time, required: true }
      reason: { type: string, maxLength: 500, description: "Why the pet comes in: _short_ and **plain**." }
    status:
      values: [booked, confirmed, cancelled, done]
      initial: booked
      transitions:
        booked: [confirmed, cancelled]
        confirmed: [cancelled, done]
    access: { read: [clinic:read], write: [appointments:write] }
    operations:
      list: { sort: [startsAt, id] }
      get: {}
      create: {}
      update: {}
      delete: {}
    actions:
      confirm: { when: [booked], to: confirmed, summary: Confirm an appointment }
      cancel:
        when: [booked, confirmed]
        to: cancelled
        body:
          because: { type: string, required: true, minLength: 1, description: "Told to the owner, e.g. *the vet is ill*" }
      complete:
        when: [confirmed]
        to: done
        body:
          weightKg: { type: number, minimum: 0, description: The pet's weight at the visit }
`;

let browser: Browser;
let lending: RunningServer;
let clinic: RunningServer;
beforeAll(async () => {
  [lending, clinic] = await Promise.all([startFixtureServer("lending"), startDeclaredServer(CLINIC, [])]);
  if (existsSync(CHROMIUM) || process.env.CI !== undefined) browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}, START_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await Promise.all([lending?.close(), clinic?.close()]);
});

/** What the page shows: its errors and every request it made, watched from the start. */
type Watched = { page: Page; errors: string[]; requested: string[] };

async function open(url: string, options: { bypassCSP?: boolean; document?: unknown } = {}): Promise<Watched> {
  const context = await browser.newContext({ bypassCSP: options.bypassCSP === true });
  // Why: an element that never comes fails the test in seconds, not at the runner's time-out.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const requested: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("request", (request) => requested.push(request.url()));
  if (options.document !== undefined) {
    await page.route("**/openapi.json", (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify(options.document) }));
  }
  await page.goto(url);
  await page.waitForSelector("details.operation", { timeout: 20_000 });
  return { page, errors, requested };
}

/** Opens every operation and waits until each has built its details. */
async function expandAll(page: Page): Promise<void> {
  await page.click("#expand");
  // Why a selector, not waitForFunction: a string predicate is re-evaluated by eval() on each poll,
  // which the page's Content-Security-Policy refuses once the first check has not yet held.
  await page.waitForSelector("details.operation:not([data-built])", { state: "detached", timeout: 20_000 });
}

/** The document as the page read it: every operation, with its parameters and response statuses. */
function expected(doc: Json): Map<string, { params: string[]; statuses: string[] }> {
  const deref = (value: unknown): Json => {
    let at = value as Json;
    while (typeof at.$ref === "string") at = (at.$ref.slice(2).split("/") as string[]).reduce<Json>((o, k) => o[k] as Json, doc);
    return at;
  };
  const out = new Map<string, { params: string[]; statuses: string[] }>();
  for (const item of Object.values(doc.paths as { [path: string]: Json })) {
    for (const method of ["get", "put", "post", "delete", "patch"]) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      const params = [...((item.parameters ?? []) as unknown[]), ...((op.parameters ?? []) as unknown[])]
        .map(deref)
        .map((p) => `${String(p.in)} ${String(p.name)}`);
      out.set(`op-${String(op.operationId)}`, { params: [...new Set(params)].sort(), statuses: Object.keys(op.responses as Json) });
    }
  }
  return out;
}

/** Every operation's shown parameters and response statuses, read from the page. */
async function shown(page: Page): Promise<Map<string, { params: string[]; statuses: string[] }>> {
  const rows = await page.locator("details.operation").evaluateAll((nodes) =>
    nodes.map((node) => ({
      id: node.id,
      params: [...node.querySelectorAll("tr.parameter")]
        .map((row) => `${row.querySelector(".in")?.textContent ?? ""} ${row.querySelector("code.name")?.textContent ?? ""}`)
        .sort(),
      statuses: [...node.querySelectorAll(".response .status code")].map((code) => code.textContent ?? ""),
    })),
  );
  return new Map(rows.map(({ id, ...rest }) => [id, rest]));
}

/** Text as a reader sees it, blank lines and the spaces around line ends left out. */
function lines(text: string): string {
  return text.replace(/[ \t]*\n\s*/g, "\n").trim();
}

/** The text of an operation's response for one status. */
async function responseText(page: Page, operation: string, status: string): Promise<string> {
  const response = page.locator(`#op-${operation} .response`).filter({ has: page.locator(".status code", { hasText: new RegExp(`^${status}$`) }) });
  return lines(await response.innerText());
}

describe.skipIf(!existsSync(CHROMIUM) && process.env.CI === undefined)("the /docs page in chromium", () => {
  it(
    "shows every operation of the lending API, resolved: bodies, shared responses, action parameters, Markdown, examples, security, the served origin",
    async () => {
      const { page, errors, requested } = await open(`${lending.url}/v1/docs`);
      try {
        expect(await page.locator("h1").textContent()).toBe("Lending API");
        // The server as served (127.0.0.1 and the base path), not the document's production URL.
        expect(await page.locator(".base-url").textContent()).toBe(`${lending.url}/v1`);
        expect(await page.locator("#op-renewLoan .url").textContent()).toBe(`POST ${lending.url}/v1/loans/{id}/renew`);
        // Security: the scheme, its flow, where to get a token (the API's own endpoint), the scopes.
        const scheme = page.locator("#security-OAuth2PasswordBearer");
        expect(await scheme.locator("h4").textContent()).toBe("Password flow");
        expect(await scheme.locator("dd.tokenUrl").textContent()).toBe(`${lending.url}/v1/token`);
        expect(await scheme.locator("dd.tokenUrl a").getAttribute("href")).toBe(`${lending.url}/v1/token`);
        expect(await scheme.locator("table.scopes td").allTextContents()).toEqual([
          "library:read",
          "See members and loans",
          "library:write",
          "Manage books and members",
          "loans:write",
          "Lend, renew and return books",
        ]);

        await expandAll(page);
        const doc = (await (await fetch(`${lending.url}/v1/openapi.json`)).json()) as Json;
        expect(await shown(page)).toEqual(expected(doc));
        const text = (await page.locator("main").textContent()) ?? "";
        expect(text).not.toContain("$ref");
        expect(text).not.toMatch(/\[object Object\]|undefined/);

        const renew = page.locator("#op-renewLoan");
        expect(await renew.locator(".needs").textContent()).toBe("Needs: OAuth2PasswordBearer with scope loans:write");
        // The action's path parameter (declared on the path item), with its description.
        expect(lines(await renew.locator("tr.parameter").first().innerText())).toBe("id required\tpath\tinteger\nThe loan's id.\n>= 1\nExample: 1");
        // The request body's $ref resolved to its fields, and an example made from the schema.
        expect(lines(await renew.locator(".content").first().locator("li.field").innerText())).toContain(
          "days integer required >= 1; <= 30\nDays added to the due date",
        );
        expect(JSON.parse((await renew.locator(".content").first().locator("pre.example").textContent()) ?? "")).toEqual({ days: 1 });
        // A shared response: its description, its header, its schema and declared examples.
        const unauthorized = await responseText(page, "renewLoan", "401");
        expect(unauthorized).toContain("Unauthorized\nNo valid credential: the guard asks for a bearer token.");
        expect(unauthorized).toContain("WWW-Authenticate\tstring\nBearer (RFC 6750 section 3)");
        expect(unauthorized).toContain("Example missing: No credential");
        expect(unauthorized).toContain('"detail": "Not authenticated"');
        // The 200's Loan: nested fields with formats and enums; readOnly left out of... nothing: a response shows all.
        const ok = await responseText(page, "renewLoan", "200");
        expect(ok).toContain("dueOn string (date) required");
        expect(ok).toContain("status LoanStatus");
        expect(ok).toContain('"dueOn": "2026-01-31"');
        // Markdown: a code span is code, not backticks.
        const list = page.locator("#op-listBooks .body > .md");
        expect(await list.locator("code").first().textContent()).toBe("q");
        expect(await list.textContent()).toBe("Books whose title or author contains q, filtered by author when it is given.");
        // The schema a reference names is a link that opens it.
        await renew.locator(".response a", { hasText: "Loan" }).first().click();
        await page.waitForSelector("#schema-Loan[open] li.field");
        expect(errors).toEqual([]);
        expect(requested.every((url) => url.startsWith(lending.url))).toBe(true);
      } finally {
        await page.context().close();
      }
    },
    START_TIMEOUT,
  );

  it(
    "shows the clinic API: actions with their path parameter and body, OAuth2 authorization code, Markdown, under /api",
    async () => {
      const { page, errors } = await open(`${clinic.url}/api/docs`);
      try {
        expect(await page.locator(".base-url").textContent()).toBe(`${clinic.url}/api`);
        expect(await page.locator(".servers").textContent()).toBe("The document names: https://clinic.example.org/api");
        // The API's Markdown: strong, emphasis, code, a list and a link, each an element.
        const intro = page.locator("header .md");
        expect(await intro.locator("strong").textContent()).toBe("owners");
        expect(await intro.locator("em").textContent()).toBe("pets");
        expect(await intro.locator("ul li").allTextContents()).toEqual(["Book an appointment for a pet", "Confirm, cancel or complete it"]);
        expect(await intro.locator("a").getAttribute("href")).toBe("https://clinic.example.org/guide");
        const scheme = page.locator("#security-ClinicLogin");
        expect(await scheme.locator("h4").textContent()).toBe("Authorization code flow");
        expect(await scheme.locator("dd.authorizationUrl").textContent()).toBe("https://login.clinic.example.org/authorize");
        expect(await scheme.locator("dd.tokenUrl").textContent()).toBe("https://login.clinic.example.org/token");
        expect(await scheme.locator("table.scopes td code").allTextContents()).toEqual(["clinic:read", "clinic:write", "appointments:write"]);
        expect(await page.locator("nav .toc > li > a").allTextContents()).toEqual(["Security schemes", "Index", "owners", "pets", "appointments", "Schemas"]);

        await expandAll(page);
        const doc = (await (await fetch(`${clinic.url}/api/openapi.json`)).json()) as Json;
        expect(await shown(page)).toEqual(expected(doc));
        expect((await page.locator("main").textContent()) ?? "").not.toContain("$ref");
        const cancel = page.locator("#op-cancelAppointment");
        expect(lines(await cancel.locator("tr.parameter").first().innerText())).toContain("id required\tpath\tinteger\nThe appointment's id.");
        expect(await cancel.locator(".needs").textContent()).toBe("Needs: ClinicLogin with scope appointments:write");
        const because = cancel.locator(".content").first().locator("li.field");
        expect(lines(await because.innerText())).toBe("because string required at least 1 characters\nTold to the owner, e.g. the vet is ill");
        expect(await because.locator("em").textContent()).toBe("the vet is ill");
        // A field's Markdown in the Appointment schema, nested in a response.
        const reason = (await responseText(page, "getAppointment", "200")).split("\n").filter((line) => line.startsWith("Why the pet"));
        expect(reason).toEqual(["Why the pet comes in: short and plain."]);
        expect(lines(await page.locator("#op-createPet .content").first().innerText())).toContain(
          'species string required one of "dog", "cat", "rabbit", "bird"',
        );
        expect(errors).toEqual([]);
      } finally {
        await page.context().close();
      }
    },
    START_TIMEOUT,
  );

  it(
    "keeps a hostile document's text inert: no markup, no script, no javascript: link, with the page's policy switched off",
    async () => {
      const hostile = {
        openapi: "3.1.0",
        info: {
          title: '<img src=x onerror="window.pwned=1">Hostile',
          version: "1",
          description: [
            "<script>window.pwned=2</script> *fine* and **strong**",
            "",
            "[js](javascript:window.pwned=3) [tab](java\tscript:window.pwned=4) [space]( javascript:window.pwned=5) [data](data:text/html,x)",
            '[ok](https://example.org/ok) [here](#schema-Note) <a href="javascript:window.pwned=6">raw</a>',
          ].join("\n"),
        },
        tags: [{ name: "<b>notes</b>", description: '<iframe src="javascript:window.pwned=7"></iframe>' }],
        paths: {
          "/notes/{id}": {
            parameters: [{ name: "id", in: "path", required: true, description: "<svg onload=window.pwned=8>", schema: { type: "string" } }],
            get: {
              operationId: '"><img src=x onerror=window.pwned=9>',
              tags: ["<b>notes</b>"],
              summary: "</summary><script>window.pwned=10</script>",
              responses: {
                "200": {
                  description: "`<img src=x onerror=window.pwned=11>`",
                  content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
                },
              },
              security: [{ "<x>": ["<script>"] }],
            },
          },
        },
        components: {
          schemas: {
            Note: {
              type: "object",
              properties: {
                "<img src=x onerror=window.pwned=12>": { type: "string", enum: ["</script><script>window.pwned=13</script>"] },
                self: { $ref: "#/components/schemas/Note" },
                // A cycle through a deeper pointer than a component's name.
                next: { $ref: "#/components/schemas/Note/definitions/link" },
              },
              definitions: { link: { type: "object", properties: { after: { $ref: "#/components/schemas/Note/definitions/link" } } } },
            },
          },
          securitySchemes: {
            "<x>": { type: "oauth2", flows: { implicit: { authorizationUrl: "javascript:window.pwned=14", scopes: { "<script>": "<b>all</b>" } } } },
          },
        },
      };
      const { page, errors } = await open(`${lending.url}/v1/docs`, { bypassCSP: true, document: hostile });
      try {
        // Markdown applied around the hostile text: a safe link and a fragment are links.
        const links = await page.locator("header .md a").evaluateAll((nodes) => nodes.map((a) => [a.textContent, a.getAttribute("href")]));
        expect(links).toEqual([
          ["ok", "https://example.org/ok"],
          ["here", `${lending.url}/v1/docs#schema-Note`],
        ]);
        await expandAll(page);
        await page.locator("#schema-Note summary").click();
        await page.waitForSelector("#schema-Note li.field");
        const found = {
          pwned: await page.evaluate("window.pwned"),
          scripts: await page.locator("script").count(),
          markup: await page.locator("img, iframe, svg, b, main script").count(),
          handlers: await page
            .locator("*")
            .evaluateAll((nodes) => nodes.filter((node) => node.getAttributeNames().some((name: string) => name.startsWith("on"))).length),
          hrefs: await page
            .locator("a[href]")
            .evaluateAll((nodes) => nodes.map((a) => (a as unknown as { href: string }).href).filter((href) => !/^https?:/.test(href))),
        };
        expect(found).toEqual({ pwned: undefined, scripts: 1, markup: 0, handlers: 0, hrefs: [] });
        // The text reads as written, Markdown applied around it.
        expect(await page.locator("h1").textContent()).toBe('<img src=x onerror="window.pwned=1">Hostile');
        expect(lines(await page.locator("header .md p").first().innerText())).toBe("<script>window.pwned=2</script> fine and strong");
        expect(await page.locator("header .md strong").textContent()).toBe("strong");
        expect(await page.locator(".response .md code").textContent()).toBe("<img src=x onerror=window.pwned=11>");
        expect(await page.locator(".scheme dd.authorizationUrl").textContent()).toBe("javascript:window.pwned=14");
        expect(await page.locator("#schema-Note .cycle").allTextContents()).toEqual([
          "Refers back to Note (shown above).",
          "Refers back to an enclosing schema (shown above).",
        ]);
        expect(errors).toEqual([]);
      } finally {
        await page.context().close();
      }
    },
    START_TIMEOUT,
  );

  it(
    "renders a thousand operations as summary lines, building an operation's details when it is opened",
    async () => {
      const paths: Json = {};
      for (let i = 0; i < 1000; i++) {
        paths[`/things${i}/{id}`] = {
          parameters: [{ $ref: "#/components/parameters/Id" }],
          get: {
            operationId: `getThing${i}`,
            tags: [`group${i % 20}`],
            responses: { "200": { $ref: "#/components/responses/Thing" }, "404": { $ref: "#/components/responses/NotFound" } },
          },
        };
      }
      const big = {
        openapi: "3.1.0",
        info: { title: "Big", version: "1" },
        paths,
        components: {
          // An OpenAPI 3.0 exclusive bound (a boolean beside minimum), as documents given as input may have.
          parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 0, exclusiveMinimum: true } } },
          responses: {
            Thing: { description: "The thing.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } },
            NotFound: { description: "No thing has this id." },
          },
          schemas: {
            Thing: { type: "object", properties: { id: { type: "integer" }, parts: { type: "array", items: { $ref: "#/components/schemas/Thing" } } } },
          },
        },
      };
      const { page, errors } = await open(`${lending.url}/v1/docs`, { document: big });
      try {
        // Counting the work, not the time: a bounded number of elements per operation at load.
        const counts = { operations: await page.locator("details.operation").count(), elements: await page.locator("*").count() };
        expect(counts.operations).toBe(1000);
        expect(counts.elements).toBeLessThan(12 * 1000);
        await page.locator("#op-getThing999 summary").click();
        expect(lines(await page.locator("#op-getThing999 tr.parameter").innerText())).toBe("id required\tpath\tinteger\n> 0\nExample: 1");
        expect(await responseText(page, "getThing999", "404")).toBe("404 NotFound\nNo thing has this id.");
        expect(errors).toEqual([]);
      } finally {
        await page.context().close();
      }
    },
    START_TIMEOUT,
  );
});
