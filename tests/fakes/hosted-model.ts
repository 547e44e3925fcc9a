import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** What the fake answers one request with; `hang` never answers (for timeouts). */
export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true };

export const completion = (content = 'Hello from the fake model', model = 'gpt-4o-2024-08-06') => ({
  status: 200,
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  },
});

export const embedding = () => ({
  status: 200,
  body: { object: 'list', model: 'text-embedding-3-small', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], usage: { prompt_tokens: 1, total_tokens: 1 } },
});

export const providerError = (status: number, message: string, headers?: Record<string, string>) => ({
  status,
  body: { error: { code: String(status), message } },
  headers,
});

/**
 * A hosted-model service (Azure-OpenAI style) on 127.0.0.1 that records every request and answers
 * from a queue (chat completions or embeddings by default when the queue is empty).
 */
export class FakeHostedModel {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeAnswer[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  private server?: http.Server;
  url = '';

  answer(...answers: FakeAnswer[]): this {
    this.queue.push(...answers);
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => (raw += chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://fake');
        this.requests.push({
          method: request.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body: raw ? JSON.parse(raw) : undefined,
        });
        const answer: FakeAnswer = this.queue.shift() ?? (url.pathname.endsWith('/embeddings') ? embedding() : completion());
        if ('hang' in answer) {
          this.hanging.add(response);
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        response.end(answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
