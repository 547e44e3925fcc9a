/** A progress bar on standard error, drawn only when it is a terminal (nothing in CI logs or pipes). */
export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): { tick(done: number): void; end(): void } {
  if (!stream.isTTY || total < 2) return { tick: () => undefined, end: () => undefined };
  const width = 30;
  const draw = (done: number) => {
    const filled = Math.round((done / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  };
  draw(0);
  return {
    tick: draw,
    end: () => stream.write('\r\x1b[2K'),
  };
}
