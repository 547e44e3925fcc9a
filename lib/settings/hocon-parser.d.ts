declare module '@pushcorn/hocon-parser' {
  function parse(options: { url?: string; text?: string; strict?: boolean }): Promise<unknown>;
  export default parse;
}
