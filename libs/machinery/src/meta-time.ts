/**
 * A time as Kubernetes writes a metav1.Time: RFC 3339 in UTC, whole seconds (`2006-01-02T15:04:05Z`).
 * Conditions, timestamps of status fields and managedFields all carry this form.
 */
export function metaTime(at: Date | number = new Date()): string {
  return `${(typeof at === 'number' ? new Date(at) : at).toISOString().slice(0, 19)}Z`;
}
