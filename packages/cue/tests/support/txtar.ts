import { readdirSync } from 'node:fs';

/** The sections of a txtar archive (`-- name --` lines start them; the text before the first one is a comment). */
function txtarSections(archive: string): { name: string; text: string }[] {
  const parts = archive.split(/^-- (.+) --$/m);
  const sections: { name: string; text: string }[] = [];
  for (let i = 1; i < parts.length; i += 2) sections.push({ name: parts[i], text: parts[i + 1].replace(/^\n/, '') });
  return sections;
}

/** The CUE input of a conformance archive: its `.cue` sections outside out/ (out/ holds what the reference printed). */
export function cueInputsOf(archive: string): { name: string; text: string }[] {
  return txtarSections(archive).filter((section) => section.name.endsWith('.cue') && !section.name.startsWith('out/'));
}

/** The `.txtar` files under a folder, at any depth, as paths relative to it, sorted. */
export function txtarFilesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.txtar'))
    .sort();
}
