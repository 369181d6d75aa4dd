/** LIKE's wildcards and its escape character, escaped: user text matched literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `search` as an ILIKE pattern matching the text anywhere. */
export const containsPattern = (text: string) => `%${escapeLike(text)}%`;

/** A LIKE pattern matching text that starts with `prefix`. */
export const prefixPattern = (prefix: string) => `${escapeLike(prefix)}%`;
