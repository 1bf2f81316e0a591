// What the fake server answers, typed from codegen's result types; free of Node types, so helpers beside
// the components (checked with the browser's types) can use it too.

/** The API contract's error codes (server/src/platform/errors.ts): a fake can answer only what the server can. */
export type ErrorCode = 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'BAD_USER_INPUT' | 'CONFLICT' | 'RATE_LIMITED' | 'INTERNAL_SERVER_ERROR';

export interface FakeGraphqlError {
  message: string;
  extensions: { code: ErrorCode; field?: string; reason?: string; previousValidUntil?: string };
}

type UnionToIntersection<U> = (U extends unknown ? (spread: U) => void : never) extends (spread: infer I) => void ? I : never;
type FragmentsOf<T> = ' $fragmentRefs' extends keyof T ? Wire<UnionToIntersection<NonNullable<T[' $fragmentRefs']>[keyof NonNullable<T[' $fragmentRefs']>]>> : unknown;
type WireObject<T> = { [K in keyof T]: K extends ' $fragmentRefs' | ' $fragmentName' ? never : Wire<T[K]> } & FragmentsOf<T> & { __typename?: string };

/**
 * A codegen result type as the server sends it: fragments spread in (codegen masks them from the
 * component) and `__typename`, which Apollo asks for on every object. Any other field is a type error.
 */
export type Wire<T> = T extends readonly (infer Item)[] ? Wire<Item>[] : T extends object ? WireObject<T> : T;

/** An answer shaped like the server's: the operation's result type (from codegen), or errors and no data. */
export type Reply<TData> = { data: TData | null; errors?: FakeGraphqlError[] };
