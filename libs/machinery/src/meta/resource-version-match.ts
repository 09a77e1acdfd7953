/** How a list's `resourceVersion` is read: at exactly that version, or at that version or newer. */
export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';
