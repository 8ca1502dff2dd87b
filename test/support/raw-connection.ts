// A raw HTTP/1.1 connection for tests that send a request in pieces (a body still arriving when
// a server begins to shut down): write what you like, read the whole answer once the server closes.

import { connect, type Socket } from "node:net";

/** A raw HTTP/1.1 connection: write what you like, read the whole answer once the server closes or answers. */
export function open(url: URL): Promise<{ socket: Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      const answer = new Promise<string>((done) => {
        socket.on("close", () => done(text));
        socket.on("error", () => done(text));
      });
      resolve({ socket, answer });
    });
    socket.once("error", reject);
  });
}

/** The status of an answer read by `open` (0 when none came). */
export const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
