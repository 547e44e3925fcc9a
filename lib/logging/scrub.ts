const PATTERNS: [RegExp, string][] = [
  // credentials inside URLs: scheme://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, '$1[REDACTED]@'],
  // key=value and key: value pairs whose key names a secret
  [/\b(password|passwd|pwd|secret|token|api[-_]?key|access[-_]?token|client[-_]?secret)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi, '$1$2[REDACTED]'],
  // Authorization header values
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [REDACTED]'],
];

/** Removes secrets that may be embedded in free text (error messages, stack traces) before it is logged. */
export function scrubSecrets(text: string): string {
  return PATTERNS.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text);
}
