/** Markdown files are bundled as their text (esbuild's `text` loader, and vitest's plugin of the same). */
declare module '*.md' {
  const text: string;
  export default text;
}
