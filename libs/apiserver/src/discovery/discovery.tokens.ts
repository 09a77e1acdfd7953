/** Injection token of the ServedApis shared by discovery and OpenAPI. */
export const SERVED_APIS = Symbol('ServedApis');
