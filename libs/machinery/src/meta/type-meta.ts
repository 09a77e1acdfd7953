/** The apiVersion and kind every object and list carries (meta/v1 TypeMeta). */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}
