/**
 * Splits one comma-separated record the way Go's encoding/csv does for pflag's list flags: a field may
 * be double-quoted to hold commas, `""` inside quotes is a quote, and a stray quote is an error.
 * The empty text is the empty list, as pflag's readAsCSV has it.
 */
export function readCsvRecord(text: string): string[] {
  if (text === '') return [];
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('extraneous or missing " in quoted-field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== ',') throw new Error('extraneous or missing " in quoted-field');
    } else {
      const end = text.indexOf(',', i);
      field = text.slice(i, end === -1 ? text.length : end);
      if (field.includes('"')) throw new Error('bare " in non-quoted-field');
      i += field.length;
    }
    fields.push(field);
    if (i >= text.length) return fields;
    i++; // the comma
  }
}

/** Inverse of readCsvRecord: quotes a field only when it must. */
export function writeCsvRecord(fields: readonly string[]): string {
  return fields.map((f) => (/[",\r\n]/.test(f) || f.startsWith(' ') ? `"${f.replace(/"/g, '""')}"` : f)).join(',');
}
