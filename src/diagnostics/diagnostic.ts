import { type DiagnosticArgs, type DiagnosticCode, messageFor } from "./catalogue.js";

/** A place in a source file; lines and columns count from 1, as editors show them. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** How many characters the caret underline covers (at least 1). */
  readonly length: number;
}

/** One problem found in the input, or by codegen in its own output. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  /** A warning does not stop generation (exit 0) unless --strict makes it an error. */
  readonly severity: "error" | "warning";
  readonly message: string;
  /** Absent only for problems with no place in a file (a missing file, our own bugs). */
  readonly location?: SourceLocation;
  /** Further places worth showing ("first declared here"). */
  readonly related?: readonly { readonly message: string; readonly location: SourceLocation }[];
}

/** Build a diagnostic from the catalogue: the only way diagnostics are made. */
export function diagnostic<C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, location?: SourceLocation, related?: Diagnostic["related"]): Diagnostic {
  return {
    code,
    severity: "error",
    message: messageFor(code, args),
    ...(location ? { location } : {}),
    ...(related && related.length > 0 ? { related } : {}),
  };
}

/** Build a warning from the catalogue: a problem that does not stop generation. */
export function warning<C extends DiagnosticCode>(code: C, args: DiagnosticArgs<C>, location?: SourceLocation): Diagnostic {
  return { ...diagnostic(code, args, location), severity: "warning" };
}

/** Warnings made errors (--strict). */
export const asErrors = (diagnostics: readonly Diagnostic[]): Diagnostic[] => diagnostics.map((d) => ({ ...d, severity: "error" }));

/** Sort diagnostics by file, line and column; stable, so equal places keep the order found. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) => d.location ?? { file: "", line: 0, column: 0 };
  return [...diagnostics].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x.file !== y.file) return x.file < y.file ? -1 : 1;
    return x.line - y.line || x.column - y.column;
  });
}
