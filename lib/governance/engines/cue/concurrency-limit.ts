/** Runs at most `limit` tasks at a time; the others wait their turn in order. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The place passes to the next waiting task, or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
