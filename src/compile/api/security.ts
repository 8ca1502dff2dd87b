/**
 * The one mapping from an OpenAPI security scheme to what the runtime checks
 * (runtime/guards.gen.ts, SchemeSpec), and the one reading of an operation's security
 * requirements, for codegen's own resource operations and for operations written by others alike.
 * What the runtime cannot check exactly is refused at its requirement, never approximated.
 */
import type { SchemeSpec, SecurityRequirement } from "#runtime/guards.gen.js";
import { stringLiteral } from "../../model/escape.js";
import { type Json, objectOf } from "../../model/json.js";

/** A requirement the runtime cannot enforce, at its JSON pointer. */
export interface SecurityProblem {
  readonly pointer: string;
  readonly reason: string;
}

/** An HTTP authentication scheme name: a token (RFC 9110 sections 5.6.2 and 11.1); it lands in `WWW-Authenticate`. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The scheme as the runtime checks it, or why it cannot be checked. */
export function schemeSpec(scheme: Json): { readonly spec: SchemeSpec } | { readonly reason: string } {
  switch (scheme.type) {
    case "oauth2": {
      // Why: codegen's own guards name the guard that reads them (`x-codegen-guard`: its generic
      // guard may declare any flows); otherwise seed "Authentication": password and
      // authorization-code flows use the bearer guard, other flows the generic guard.
      const guard = scheme["x-codegen-guard"];
      const flows = objectOf(scheme.flows);
      const byFlows = flows.password !== undefined || flows.authorizationCode !== undefined;
      return guarded(guard === "oauth2" ? "oauth2" : guard === "password" || guard === "authorizationCode" || byFlows ? "bearer" : "oauth2", scheme);
    }
    case "openIdConnect":
      return guarded("bearer", scheme);
    case "http": {
      const word = scheme.scheme;
      if (typeof word !== "string" || !TOKEN.test(word)) return { reason: "names no HTTP authentication scheme in `scheme`" };
      return word.toLowerCase() === "bearer" ? guarded("bearer", scheme) : { spec: { kind: "hook", in: "authorization", scheme: word } };
    }
    case "apiKey": {
      const where = scheme.in;
      if (where !== "header" && where !== "query" && where !== "cookie")
        return { reason: "sends its key neither in a header, nor in the query, nor in a cookie" };
      if (typeof scheme.name !== "string" || scheme.name === "") return { reason: "names no header, query parameter or cookie for its key" };
      return { spec: { kind: "hook", in: where, name: scheme.name } };
    }
    case "mutualTLS":
      // Why: the hook gets the request, whose socket holds the client's certificate.
      return { spec: { kind: "hook", in: "none" } };
    default:
      return { reason: `has the type ${stringLiteral(String(scheme.type))}, which codegen has no check for` };
  }
}

/** A guard reading the Authorization header; `x-codegen-auto-error: false` lets requests without a credential through it. */
function guarded(kind: "bearer" | "oauth2", scheme: Json): { spec: SchemeSpec } {
  return { spec: scheme["x-codegen-auto-error"] === false ? { kind, autoError: false } : { kind } };
}

/** schemeSpec of each scheme object read (a requirement names the same schemes at each of six thousand operations). */
const specs = new WeakMap<Json, ReturnType<typeof schemeSpec>>();
function specOf(scheme: Json): ReturnType<typeof schemeSpec> {
  let spec = specs.get(scheme);
  if (spec === undefined) {
    spec = schemeSpec(scheme);
    specs.set(scheme, spec);
  }
  return spec;
}

/** The security of one operation as the runtime reads it. */
export interface OperationSecurity {
  /** Alternatives, each the schemes that must all let a request in (`[]`: anonymous). None: public. */
  readonly requirements: readonly SecurityRequirement[];
  /** The schemes the application checks with a hook. */
  readonly hooks: readonly string[];
  /** The type of the principal a handler gets: always one, possibly none, or none (public). */
  readonly principal: "Principal" | "Principal | undefined" | "undefined";
  readonly problems: readonly SecurityProblem[];
}

/**
 * An operation's `security` (else the document's), each requirement checked against the
 * document's schemes; `at` is the operation's pointer. A requirement naming a scheme that is not
 * defined or that the runtime cannot check, or scopes that are not a list of names, is a problem
 * at that requirement: refused, never read as something laxer.
 */
export function securityOf(operation: Json, document: Json, at: string): OperationSecurity {
  const own = operation.security !== undefined;
  const declared = own ? operation.security : document.security;
  const base = own ? `${at}/security` : "#/security";
  const schemes = objectOf(objectOf(document.components).securitySchemes);
  const problems: SecurityProblem[] = [];
  const hooks = new Set<string>();
  const lenient = new Set<string>();
  if (declared !== undefined && !Array.isArray(declared)) {
    return { requirements: [], hooks: [], principal: "undefined", problems: [{ pointer: base, reason: "`security` is not a list of security requirements" }] };
  }
  const requirements = (declared ?? []).map((requirement: unknown, i: number) => {
    const pointer = `${base}/${i}`;
    if (typeof requirement !== "object" || requirement === null || Array.isArray(requirement)) {
      problems.push({ pointer, reason: "a security requirement must be an object of scheme names" });
      return [];
    }
    return Object.entries(requirement as Json).map(([name, scopes]): SecurityRequirement[number] => {
      if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === "string")) {
        problems.push({ pointer, reason: `the scopes of ${stringLiteral(name)} are not a list of names` });
      }
      if (!Object.hasOwn(schemes, name)) {
        problems.push({ pointer, reason: `the security scheme ${stringLiteral(name)} is not defined in components/securitySchemes` });
      } else {
        const mapped = specOf(objectOf(schemes[name]));
        if ("reason" in mapped) {
          problems.push({
            pointer,
            reason: `the security scheme ${stringLiteral(name)} ${mapped.reason}; codegen cannot check it, and never lets requests in unchecked`,
          });
        } else if (mapped.spec.kind === "hook") hooks.add(name);
        else if (mapped.spec.autoError === false) lenient.add(name);
      }
      return { scheme: name, scopes: Array.isArray(scopes) ? scopes.map(String) : [] };
    });
  });
  // A requirement lets a request in without a principal when it is `{}` or every scheme of it is
  // a guard with error raising off (runtime checkSecurity: the principal of its first scheme that verified one).
  const anonymous = requirements.some((requirement) => requirement.every((item) => lenient.has(item.scheme)));
  const principal = requirements.length === 0 ? "undefined" : anonymous ? "Principal | undefined" : "Principal";
  return { requirements, hooks: [...hooks], principal, problems };
}

/** The document's schemes as the runtime's table (a scheme it cannot check is left out: no requirement may name it). */
export function schemeTable(document: Json): Record<string, SchemeSpec> {
  return Object.fromEntries(
    Object.entries(objectOf(objectOf(document.components).securitySchemes)).flatMap(([name, scheme]) => {
      const mapped = schemeSpec(objectOf(scheme));
      return "spec" in mapped ? [[name, mapped.spec]] : [];
    }),
  );
}
