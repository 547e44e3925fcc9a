/**
 * CUE's error output, read back: `cue vet` and `cue export` print each error as a header line
 * (`path: message`, followed by `:` when positions come next) and one indented line per position
 * (`    ./file.cue:12:5`). Paths of files are printed relative to the working directory, so only the
 * file's base name is kept.
 */
export interface CuePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface CueMessage {
  /** The header without the `:` that announces positions. */
  readonly text: string;
  readonly positions: readonly CuePosition[];
}

const POSITION = /^\s+(?:.*\/)?([^/\s]+):(\d+):(\d+)$/;

export function parseCueMessages(stderr: string): CueMessage[] {
  const messages: { text: string; positions: CuePosition[] }[] = [];
  for (const line of stderr.split('\n')) {
    if (line.trim() === '') continue;
    const position = POSITION.exec(line);
    const current = messages.at(-1);
    if (position && current) {
      current.positions.push({ file: position[1], line: Number(position[2]), column: Number(position[3]) });
    } else if (/^\s/.test(line) && current) {
      current.text += `\n${line.trim()}`;
    } else {
      messages.push({ text: line, positions: [] });
    }
  }
  for (const message of messages) if (message.positions.length > 0) message.text = message.text.replace(/:$/, '');
  return messages;
}

/** A message in CUE's own layout, with the given positions. */
export function formatCueMessage(text: string, positions: readonly string[]): string {
  return positions.length === 0 ? text : `${text}:\n${positions.map((position) => `    ${position}`).join('\n')}`;
}
