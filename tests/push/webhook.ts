import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** The HTTP status the receiver answered. */
  status: number;
}

/**
 * A webhook receiver on loopback for push tests. Every POST is recorded; `respond` decides each answer
 * (default 200), so a test can make a hook fail, recover or hang.
 */
export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  respond: (path: string, attempt: number) => number | "hang" = () => 200;
  url = "";
  #server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const attempt = this.deliveries.filter((d) => d.path === path).length + 1;
      const answer = this.respond(path, attempt);
      const delivery = { path, headers: req.headers, body: raw ? JSON.parse(raw) : undefined, status: answer === "hang" ? 0 : answer };
      this.deliveries.push(delivery);
      this.#check();
      if (answer === "hang") return; // never answers: the sender's timeout must cut it
      res.writeHead(answer).end();
    });
  });
  #waiters: Array<{ ok: () => boolean; resolve: () => void }> = [];

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }

  /** Deliveries to `path` the receiver accepted (answered 2xx). */
  accepted(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path && d.status >= 200 && d.status < 300);
  }

  /** Resolves once `count` POSTs to `path` have arrived (accepted or not, when `anyStatus`). */
  waitFor(path: string, count: number, anyStatus = false): Promise<Delivery[]> {
    const got = () => (anyStatus ? this.deliveries.filter((d) => d.path === path) : this.accepted(path));
    return new Promise((resolve) => {
      const ok = () => got().length >= count;
      if (ok()) return resolve(got());
      this.#waiters.push({ ok, resolve: () => resolve(got()) });
    });
  }

  #check(): void {
    for (const w of [...this.#waiters]) {
      if (w.ok()) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}
