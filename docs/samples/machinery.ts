/** The machinery's tour (libs/machinery/README.md), run by test/docs-samples.e2e-spec.ts. */
import type { TestEnvironment } from '@svc/apiserver/testing';
import { isNotFound, parseLabelRequirements } from '@svc/machinery';

export async function sample({ client }: TestEnvironment): Promise<string[]> {
  const seen: string[] = [];
  // #region doc
  const requirements = parseLabelRequirements('app=web,tier in (front,back)');
  try {
    await client.configMaps.get('cfg-missing', { namespace: 'default' });
  } catch (error) {
    if (!isNotFound(error)) throw error; // 404: gone is fine here
    seen.push('not found');
  }
  // #endregion
  seen.push(`${requirements.length} requirements`);
  return seen;
}
