import pino from 'pino';
import { vi } from 'vitest';

import { logger } from '#lib/logging/logger';

/** One JSON line of the log. */
export type LogLine = Record<string, unknown>;

/**
 * The lines of `level` and above that the process's logger and the children made while capturing
 * (a request's logger) write until `stop`, as written: serialised, redacted. Children share their
 * parent's stream, which is what is captured; tests log nothing otherwise (LOG_LEVEL=silent).
 */
export function captureLogs(level = 'info'): { lines: LogLine[]; stop: () => void } {
  const previousLevel = logger.level;
  logger.level = level;
  const stream = (logger as unknown as Record<symbol, { write: (line: string) => boolean }>)[pino.symbols.streamSym];
  const lines: LogLine[] = [];
  const write = vi.spyOn(stream, 'write').mockImplementation((line: string) => {
    lines.push(JSON.parse(line));
    return true;
  });
  return {
    lines,
    stop: () => {
      write.mockRestore();
      logger.level = previousLevel;
    },
  };
}
