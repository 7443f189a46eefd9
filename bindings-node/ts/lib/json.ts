/** Any JSON value (its own file: data.ts and the generated answers.ts both name it). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
