import type { FIELD_TYPES, OPERATIONS, STRING_FORMATS } from "./schema.js";

/** One of the six resource operations. */
export type Operation = (typeof OPERATIONS)[number];
/** A field's JSON type. */
export type FieldType = (typeof FIELD_TYPES)[number];
/** A checked string format. */
export type StringFormat = (typeof STRING_FORMATS)[number];
/** A scalar a field's `enum` may hold. */
export type EnumValue = string | number | boolean;
/** `x-` keys of a declaration object, copied into the OpenAPI object generated from it. */
export type Extensions = Readonly<Record<string, unknown>>;

/** JSON Schema constraints a field may carry. */
export interface Constraints {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** A field after validation: shorthand expanded, defaults filled in. */
export interface Field extends Constraints {
  readonly name: string;
  readonly type: FieldType;
  /** For arrays. */
  readonly items?: Field;
  /** For objects, in declaration order. */
  readonly fields?: readonly Field[];
  readonly enum?: readonly EnumValue[];
  readonly format?: StringFormat;
  readonly required: boolean;
  readonly nullable: boolean;
  /** Present only when declared (a declared default may itself be `null`). */
  readonly default?: { readonly value: unknown };
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
  readonly filter: boolean;
  /** Collection name of the resource whose id this field holds. */
  readonly ref?: string;
  /** The field's previous name: the next migration renames its column (docs/migrations.md). */
  readonly renamedFrom?: string;
  readonly description?: string;
  readonly example?: { readonly value: unknown };
  readonly extensions: Extensions;
}

/** Who may call an operation. */
export type Access =
  | { readonly kind: "public" }
  | { readonly kind: "optional" }
  | { readonly kind: "authenticated" }
  | { readonly kind: "scopes"; readonly scopes: readonly string[] };

/** A resource's state machine for its `status` field. */
export interface StatusMachine {
  readonly values: readonly string[];
  readonly initial: string;
  /** From -> to, in declaration order; a state without an entry is final. */
  readonly transitions: ReadonlyMap<string, readonly string[]>;
  readonly description?: string;
  readonly extensions: Extensions;
}

/** A declared link, offered in responses while the object is in one of `when` (all states if absent). */
export interface LinkRule {
  readonly rel: string;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly when?: readonly string[];
  /** Absent: the object's own address. */
  readonly href?: string;
  readonly description?: string;
  readonly extensions: Extensions;
}

/** A status a handler may refuse with, and when it happens (declaration.md, "Operations (map form)"). */
export interface DeclaredError {
  /** The HTTP status, as written: `"409"`. */
  readonly status: string;
  readonly description: string;
}

/** Pagination of a list: `limit` defaults to `size` and may not exceed `max`. */
export interface Page {
  readonly size: number;
  readonly max: number;
}

/** What an operation declares beyond its defaults (the map form of `operations`). */
export interface OperationOptions {
  readonly summary?: string;
  readonly description?: string;
  /** In ascending order of status. */
  readonly errors: readonly DeclaredError[];
  /** `list` only. */
  readonly page?: Page;
  /** `list` only: the fields (or `id`) a client may sort by. */
  readonly sort?: readonly string[];
  /** `list` only: extra query parameters, handed to the handler. */
  readonly query: readonly Field[];
  readonly extensions: Extensions;
}

/** An operation on one object beyond CRUD: `POST /loans/{id}/renew` (declaration.md, "Actions"). */
export interface Action {
  /** The path segment below the object: `renew`. */
  readonly name: string;
  readonly method: "POST" | "PUT" | "DELETE";
  /** The states in which it is allowed (all states if absent). */
  readonly when?: readonly string[];
  /** The status afterwards. */
  readonly to?: string;
  /** The request body's fields; absent: the action takes no body. */
  readonly body?: readonly Field[];
  /** The body fields stored on the object (with `to`, in one write): those named like a resource field. */
  readonly stores?: readonly string[];
  readonly access: Access;
  readonly summary?: string;
  readonly description?: string;
  /** In ascending order of status. */
  readonly errors: readonly DeclaredError[];
  readonly extensions: Extensions;
}

/** A resource after validation, with every derived name. */
export interface Resource {
  /** The collection name and path segment: `articles`, `blog-posts`. */
  readonly name: string;
  readonly singular: string;
  /** PascalCase of the singular: `Article`, `BlogPost`. */
  readonly typeName: string;
  readonly description?: string;
  readonly id: "integer" | "uuid" | "string";
  readonly fields: readonly Field[];
  readonly status?: StatusMachine;
  readonly links: readonly LinkRule[];
  /** The operations offered, in the canonical order. */
  readonly operations: readonly Operation[];
  /** Options of every offered operation (defaults when it was listed, or given as `{}`). */
  readonly options: Readonly<Partial<Record<Operation, OperationOptions>>>;
  /** Resolved access per offered operation. */
  readonly access: Readonly<Partial<Record<Operation, Access>>>;
  readonly actions: readonly Action[];
  readonly extensions: Extensions;
  /** `x-` keys of `access`, copied onto each operation. */
  readonly accessExtensions: Extensions;
}

/** Properties every guard has. */
interface GuardBase {
  readonly name: string;
  readonly description?: string;
  readonly autoError: boolean;
  readonly extensions: Extensions;
}

/** A guard after validation. */
export type Guard =
  | (GuardBase & {
      readonly kind: "password";
      readonly tokenUrl: string;
      readonly form: "permissive" | "strict";
      readonly scopes: Readonly<Record<string, string>>;
    })
  | (GuardBase & {
      readonly kind: "authorizationCode";
      readonly authorizationUrl: string;
      readonly tokenUrl: string;
      readonly refreshUrl?: string;
      readonly scopes: Readonly<Record<string, string>>;
    })
  | (GuardBase & { readonly kind: "oauth2"; readonly flows: Readonly<Record<string, unknown>> });

/** A server entry. */
export interface Server {
  readonly url: string;
  readonly description?: string;
  readonly extensions: Extensions;
}

/** A whole declaration after validation: what the expansion reads. */
export interface Declaration {
  /** The `info` map as declared (title and version are strings), `x-` keys included. */
  readonly info: Readonly<Record<string, unknown>> & { readonly title: string; readonly version: string };
  readonly servers: readonly Server[];
  readonly guards: readonly Guard[];
  readonly resources: readonly Resource[];
  readonly extensions: Extensions;
}

/** The scopes a guard can grant: its own, or those of every flow of a generic guard. */
export function guardScopes(guard: Guard): ReadonlySet<string> {
  // Why a set, computed once per guard: callers ask once per scope of every access rule, and a
  // list rebuilt and searched each time made 5,000 scopes (130 KB of declaration) take a minute.
  let names = scopesOfGuard.get(guard);
  if (!names) {
    const found = new Set<string>();
    if (guard.kind !== "oauth2") for (const name of Object.keys(guard.scopes)) found.add(name);
    else {
      for (const flow of Object.values(guard.flows)) {
        const scopes = (flow as { scopes?: Record<string, unknown> } | null)?.scopes;
        if (scopes && typeof scopes === "object") for (const name of Object.keys(scopes)) found.add(name);
      }
    }
    names = found;
    scopesOfGuard.set(guard, names);
  }
  return names;
}

const scopesOfGuard = new WeakMap<Guard, ReadonlySet<string>>();

/** The path of the token endpoint this API serves itself, if any (a password guard with a relative URL). */
export function servedTokenEndpoint(guards: readonly Guard[]): (Guard & { kind: "password" }) | undefined {
  return guards.find((g): g is Guard & { kind: "password" } => g.kind === "password" && g.tokenUrl.startsWith("/"));
}
