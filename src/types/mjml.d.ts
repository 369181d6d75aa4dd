// The part of mjml 5's API this server uses (the package ships no types).
declare module 'mjml' {
  export type MjmlError = { line: number; message: string; tagName: string; formattedMessage: string };
  export type MjmlOptions = {
    validationLevel?: 'strict' | 'soft' | 'skip';
    ignoreIncludes?: boolean;
    keepComments?: boolean;
    minify?: boolean;
    beautify?: boolean;
  };
  export default function mjml2html(source: string, options?: MjmlOptions): Promise<{ html: string; errors: MjmlError[] }>;
}
