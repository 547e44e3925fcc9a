import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** A (sub)segment as X-Ray's SDK sends it: the fields the tests read, and the text it came in. */
export interface SentSegment {
  readonly id: string;
  readonly name: string;
  readonly trace_id: string;
  readonly parent_id?: string;
  readonly type?: string;
  readonly namespace?: string;
  readonly annotations?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly http?: { request?: { url?: string; method?: string }; response?: { status?: number } };
  readonly aws?: Record<string, unknown>;
  readonly fault?: boolean;
  readonly error?: boolean;
  readonly cause?: unknown;
  readonly subsegments?: SentSegment[];
  /** The datagram's whole text, header included. */
  readonly text: string;
}

/**
 * The X-Ray daemon on 127.0.0.1: a UDP socket that records every segment the SDK sends it
 * (a datagram is a JSON header line, then the segment's JSON), as AWS_XRAY_DAEMON_ADDRESS names it.
 */
export class FakeXrayDaemon {
  readonly segments: SentSegment[] = [];
  private readonly socket = dgram.createSocket('udp4');
  address = '';

  async start(): Promise<void> {
    this.socket.on('message', (message) => {
      const text = message.toString('utf8');
      const body = text.slice(text.indexOf('\n') + 1);
      this.segments.push({ ...(JSON.parse(body) as Omit<SentSegment, 'text'>), text });
    });
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    this.address = `127.0.0.1:${(this.socket.address() as AddressInfo).port}`;
  }

  /** Waits for a segment named `name` (the SDK sends each as it closes, on its own datagram). */
  async segmentNamed(name: string, where: (segment: SentSegment) => boolean = () => true): Promise<SentSegment> {
    for (;;) {
      const found = this.segments.find((segment) => segment.name === name && where(segment));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Every segment sent, nested ones too (each with the id of the one it is in as its parent_id, and its own JSON as its text). */
  all(): SentSegment[] {
    const flat: SentSegment[] = [];
    const visit = (segment: SentSegment, parentId?: string) => {
      flat.push(parentId ? { ...segment, parent_id: parentId, text: JSON.stringify(segment) } : segment);
      segment.subsegments?.forEach((child) => visit(child, segment.id));
    };
    this.segments.forEach((segment) => visit(segment));
    return flat;
  }

  /** The segments below `parent`, at any depth. */
  below(parent: SentSegment): SentSegment[] {
    const all = this.all();
    const found: SentSegment[] = [];
    const visit = (id: string) => {
      for (const child of all.filter((segment) => segment.parent_id === id)) {
        found.push(child);
        visit(child.id);
      }
    };
    visit(parent.id);
    return found;
  }

  reset(): void {
    this.segments.length = 0;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }
}
