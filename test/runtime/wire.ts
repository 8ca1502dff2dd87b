// Test helpers: start servers on 127.0.0.1 and talk raw HTTP/1.1 to them over `net`, so every
// byte on the wire is the test's choice.

import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";

/** Starts `server` on a random port of 127.0.0.1 and returns the port. */
export async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Stops `server`, dropping any connection still open. */
export async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** What came back on one connection. */
export type Exchange = {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Whether the server closed the connection before the wait ended. */
  closed: boolean;
};

/**
 * Writes `request` (each string in turn, `gapMs` apart) on a new connection, then reads until
 * the server closes it or `waitMs` pass, and parses the first response.
 */
export function exchange(port: number, request: string | readonly string[], options: { waitMs?: number; gapMs?: number } = {}): Promise<Exchange> {
  const { waitMs = 1_000, gapMs = 0 } = options;
  const parts = typeof request === "string" ? [request] : request;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      if (text === "") reject(new Error("no response"));
      else resolve({ ...parseResponse(text), closed });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      finish();
    });
    void writeParts(parts, gapMs, (part) => !socket.destroyed && socket.write(part));
  });
}

async function writeParts(parts: readonly string[], gapMs: number, write: (part: string) => void): Promise<void> {
  for (const [index, part] of parts.entries()) {
    if (index > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    write(part);
  }
}

function parseResponse(text: string): Omit<Exchange, "closed"> {
  const end = text.indexOf("\r\n\r\n");
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const status = Number(statusLine.split(" ")[1]);
  return { status, headers, body: end === -1 ? "" : text.slice(end + 4) };
}

/** A GET request closing its connection, with extra header lines. */
export function getRequest(path: string, headerLines: readonly string[] = []): string {
  return [`GET ${path} HTTP/1.1`, "Host: 127.0.0.1", ...headerLines, "Connection: close", "", ""].join("\r\n");
}
