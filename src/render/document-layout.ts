import type { DocumentView } from "../model/view.js";
import { laidOut, printDoc, stringPropertyDoc } from "./layout.js";

/**
 * The members of document.gen.ts's `document` (its object is broken: one member per line), as
 * prettier prints them, and whether that layout is sure (else the file is left to prettier).
 */
export function documentMembers(document: Pick<DocumentView, "basePath" | "json" | "yaml">): { readonly text: string; readonly sure: boolean } {
  const entries = [
    ["basePath", document.basePath],
    ["json", document.json],
    ["yaml", document.yaml],
  ] as const;
  return laidOut(
    () => entries.map(([key, literal]) => `  ${printDoc([stringPropertyDoc(key, literal), ","], { indentation: 2 })}`).join("\n"),
    () => entries.map(([key, literal]) => `  ${key}: ${literal},`).join("\n"),
  );
}
