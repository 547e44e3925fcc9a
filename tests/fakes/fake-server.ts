import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a fake received; `body` is its JSON, or its text when it is not JSON (TBody: what the test expects it to be). */
export interface RecordedRequest<TBody = unknown> {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: TBody;
}

/** What a fake answers one request with; `hang` never answers (for timeouts). */
export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true };

/**
 * An outside service on 127.0.0.1 that records every request it receives and answers from a
 * queue, or with `fallback` when the queue is empty.
 */
export class FakeServer<TBody = unknown> {
  readonly requests: RecordedRequest<TBody>[] = [];
  /** The requests left unanswered (`hang`) whose caller gave up and closed the connection. */
  readonly abandoned: RecordedRequest<TBody>[] = [];
  private readonly queue: FakeAnswer[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  private server?: http.Server;
  url = '';

  constructor(
    private readonly fallback: (request: RecordedRequest<TBody>) => FakeAnswer | Promise<FakeAnswer> = () => ({
      status: 404,
      body: { error: 'no answer queued' },
    }),
  ) {}

  answer(...answers: FakeAnswer[]): this {
    this.queue.push(...answers);
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.abandoned.length = 0;
    this.queue.length = 0;
  }

  async start(): Promise<this> {
    const server = http.createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => (raw += chunk));
      request.on('end', async () => {
        const url = new URL(request.url ?? '/', 'http://fake');
        let body: unknown = raw;
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          // not JSON: keep the text
        }
        const recorded: RecordedRequest<TBody> = {
          method: request.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body: body as TBody,
        };
        this.requests.push(recorded);
        const answer = this.queue.shift() ?? (await this.fallback(recorded));
        if ('hang' in answer) {
          this.hanging.add(response);
          response.once('close', () => {
            if (this.hanging.delete(response)) this.abandoned.push(recorded);
          });
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const hanging = [...this.hanging];
    this.hanging.clear();
    for (const response of hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
