// Who is the same person: four-eyes decides it, and Basic compares a user name with a subject.
// Identities are compared normalised, and a subject that cannot be read as one name is refused at
// authentication, so that look-alikes (`ALICE`, ` alice`, full-width `ａlice`, a Cyrillic `а`, a
// zero-width joiner) neither pass as someone else nor as someone new (docs/authorization.md).

/** The form identities are compared in: Unicode NFKC, lower case, without surrounding blanks. */
const comparable = (name: string) => name.normalize('NFKC').toLowerCase().trim();

/** Whether two subjects (or a user name and a subject) name the same person. */
export const sameIdentity = (a: string, b: string): boolean => comparable(a) === comparable(b);

/** Control, format (zero-width, bidirectional marks) and line or paragraph separator characters. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** The scripts whose letters look alike: a name mixing them imitates another. */
const CONFUSABLE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Greek}/u, /\p{Script=Cyrillic}/u];

/** Why a subject cannot be accepted as a name, or undefined when it can. */
export function unreadableSubject(subject: string): string | undefined {
  if (INVISIBLE.test(subject)) return 'it holds a control or invisible character';
  if (subject !== subject.trim()) return 'it starts or ends with a blank';
  const scripts = CONFUSABLE_SCRIPTS.filter((script) => script.test(subject));
  if (scripts.length > 1) return 'it mixes Latin, Greek or Cyrillic letters';
  return undefined;
}
