/**
 * A boolean query parameter as Kubernetes decodes one into options (Convert_Slice_string_To_bool):
 * absent is false, `0` and `false` in any case are false, anything else (`1`, `True`, empty) is true.
 * The official Python client sends `tty=False`, so case matters.
 */
export function queryBool(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  if (value === null) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}
