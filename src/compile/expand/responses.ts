/**
 * The error answers of the document (openapi.md, "Responses"): what each status means, examples
 * of the bodies the generated server really sends (so docs portals show them rather than a
 * placeholder drawn from the schema), and the answers every operation shares, defined once under
 * `components.responses`.
 */
import type { DeclaredError, Guard } from "../declaration/model.js";
import { type JsonSchema, schemaRef } from "./schemas.js";

/** An example of a body, as a Media Type object's `examples` holds it. */
export interface Example {
  readonly summary: string;
  readonly value: unknown;
}

/** One reason for an error status: a sentence and an example body. */
export interface ErrorCase {
  readonly description: string;
  /** The key of the example in `examples`. */
  readonly name: string;
  readonly example: Example;
}

/**
 * One reason for an error status: its sentence, and an example (`name`: its key in `examples`) of
 * the body every error answer but the guards' has, `{error, detail}`.
 */
export function errorCase(description: string, name: string, summary: string, error: string, detail: Record<string, string> = {}): ErrorCase {
  return { description, name, example: { summary, value: { error, detail } } };
}

/** A response header whose value is text (`Location`, `ETag`, `Retry-After`, ...). */
export const textHeader = (description: string): JsonSchema => ({ description, schema: { type: "string" } });

/** A JSON error response with its examples (and headers, which go before the content). */
export function exampleResponse(description: string, examples: Record<string, Example>, schema = schemaRef("Error"), headers?: JsonSchema): JsonSchema {
  return { description, ...(headers ? { headers } : {}), content: { "application/json": { schema, examples } } };
}

/** A response made of its cases: their sentences (a list when there are several), and one example each. */
export function caseResponse(cases: readonly ErrorCase[], headers?: JsonSchema): JsonSchema {
  const description = cases.length === 1 ? cases[0]!.description : cases.map((c) => `- ${c.description}`).join("\n");
  return exampleResponse(description, Object.fromEntries(cases.map((c) => [c.name, c.example])), schemaRef("Error"), headers);
}

/** What a handler's declared refusal looks like: the declared reason as the error, no detail. */
export const declaredCase = (error: DeclaredError): ErrorCase => errorCase(error.description, "refused", "Refused by the handler", error.description);

/**
 * The answers that read the same on every operation: the guards' 401 and 403 and the 406, 413,
 * 415 and 500 of the request checks. Each is one component; operations refer to it.
 */
const SHARED = {
  "401": "Unauthorized",
  "403": "Forbidden",
  "406": "NotAcceptable",
  "413": "ContentTooLarge",
  "415": "UnsupportedMediaType",
  "412": "PreconditionFailed",
  "428": "PreconditionRequired",
  "500": "InternalServerError",
  "503": "ServiceUnavailable",
  "504": "GatewayTimeout",
} as const;

/**
 * The reference to each shared answer. Why made once: the same text at every operation (six
 * thousand at 1000 resources) was a string built per reference, and flattened again where written.
 */
const REFS = Object.fromEntries(Object.entries(SHARED).map(([status, name]) => [status, `#/components/responses/${name}`])) as Record<SharedStatus, string>;

/** An error status whose answer is shared by every operation that can give it. */
export type SharedStatus = keyof typeof SHARED;

/** Whether a status's answer is a shared component. */
export const isShared = (status: string): status is SharedStatus => Object.hasOwn(SHARED, status);

/** The default body limit of the generated server (http-behaviour.md, "Errors": 1 MiB). */
const BODY_LIMIT = 1024 * 1024;

/** The one case of each shared answer whose body is `Error` (errorCase's arguments). */
const ERROR_ANSWERS: Record<Exclude<SharedStatus, "401" | "403">, Parameters<typeof errorCase>> = {
  "406": ["The `Accept` header admits no JSON.", "notAcceptable", "`Accept: text/html`", "Not acceptable", { accept: "must admit application/json" }],
  "413": [
    "The body is larger than the server accepts.",
    "tooLarge",
    "A body over the limit (1 MiB by default)",
    "Request body too large",
    { body: `must not exceed ${BODY_LIMIT} bytes` },
  ],
  "415": ["The body is not JSON.", "notJson", "`Content-Type: text/plain`", "Unsupported media type", { "content-type": "must be application/json" }],
  // The bodies of runtime/dispatch.gen.ts's precondition (http-behaviour.md, "Conditional requests").
  "412": [
    "`If-Match` names no current version of the object (another change came first); nothing changed. Read it again.",
    "preconditionFailed",
    "A stale ETag",
    "Precondition failed",
    { "If-Match": "matches no current version of the object; read it again" },
  ],
  "428": [
    "The server requires `If-Match` on every change (`requireIfMatch`) and the request has none.",
    "preconditionRequired",
    "No If-Match",
    "Precondition required",
    { "If-Match": "is required: send the ETag of the version you read" },
  ],
  "500": ["The server failed; no internals are shown.", "failed", "A handler threw", "Internal server error"],
  // http-behaviour.md "Running in production": database trouble is no bug; the client may retry (RFC 9110 section 10.2.3).
  "503": [
    "The database is unreachable or restarting, or the server's connection pool is full; retry after `Retry-After` seconds.",
    "unavailable",
    "The database cannot be reached",
    "Service unavailable",
    { store: "the database cannot be reached now" },
  ],
  "504": [
    "The request's deadline passed (`handlerTimeout`, 30 s by default); its work was cancelled and nothing was changed.",
    "deadline",
    "The deadline passed",
    "Gateway timeout",
  ],
};

function sharedResponse(status: SharedStatus, guards: readonly Guard[]): JsonSchema {
  if (status === "401") {
    return exampleResponse(
      "No valid credential: the guard asks for a bearer token.",
      {
        missing: { summary: "No credential", value: { detail: "Not authenticated" } },
        rejected: { summary: "A credential the token check rejects", value: { detail: "Could not validate credentials" } },
      },
      schemaRef("AuthError"),
      { "WWW-Authenticate": textHeader("`Bearer` (RFC 6750 section 3)") },
    );
  }
  if (status === "403") {
    return exampleResponse(
      "The credential lacks a required scope (or the generic guard found no credential).",
      {
        insufficientScope: { summary: "A required scope is missing", value: { detail: "Not enough permissions" } },
        // Only the generic guard answers a missing credential with 403 (http-behaviour.md, "Errors").
        ...(guards.some((g) => g.kind === "oauth2") ? { missing: { summary: "No credential (generic guard)", value: { detail: "Not authenticated" } } } : {}),
      },
      schemaRef("AuthError"),
      { "WWW-Authenticate": textHeader('For bearer guards: `Bearer error="insufficient_scope", scope="..."` (RFC 6750 section 3.1)') },
    );
  }
  const retry = status === "503" ? { "Retry-After": textHeader("Seconds to wait before retrying (RFC 9110 section 10.2.3).") } : undefined;
  // A copy of the detail: a document shares no object with another.
  const [description, name, summary, error, detail] = ERROR_ANSWERS[status];
  return caseResponse([errorCase(description, name, summary, error, { ...detail })], retry);
}

/**
 * The shared answers the operations use, as they refer to them: `sharedRef` hands out a `$ref`
 * and remembers the status, and `components` gives exactly the ones referred to, in status order
 * (an unused component would be noise in the document).
 */
export class SharedResponses {
  private readonly used = new Set<SharedStatus>();

  constructor(private readonly guards: readonly Guard[]) {}

  /** A reference to the shared answer of a status. */
  ref(status: SharedStatus): JsonSchema {
    this.used.add(status);
    return { $ref: REFS[status] };
  }

  /** Whether a guard's refusal (401 or 403, whose body is `AuthError`) was referred to. */
  refersToAuthError(): boolean {
    return this.used.has("401") || this.used.has("403");
  }

  /** `components.responses`: every shared answer referred to. */
  components(): Record<string, JsonSchema> {
    const statuses = (Object.keys(SHARED) as SharedStatus[]).filter((s) => this.used.has(s));
    return Object.fromEntries(statuses.map((s) => [SHARED[s], sharedResponse(s, this.guards)]));
  }
}
