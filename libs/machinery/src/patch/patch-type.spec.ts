import {
  JSON_PATCH_MEDIA_TYPE,
  JsonObject,
  MERGE_PATCH_MEDIA_TYPE,
  PatchError,
  STRATEGIC_MERGE_PATCH_MEDIA_TYPE,
  acceptedPatchMediaTypes,
  applyNonApplyPatch,
  isNonApplyPatchMediaType,
  isStrategicMergeSupported,
  parsePatchBody,
} from './index';
import { workloadSchema } from './testing/workload-schema';
import { thrownBy } from '../testing/thrown-by';

const refusal = (run: () => unknown): PatchError => thrownBy(run, PatchError);

const live: JsonObject = { metadata: { name: 'p', finalizers: ['a'] }, spec: { containers: [{ name: 'app', image: '1' }] } };

describe('applyNonApplyPatch', () => {
  it('chooses the patch by its media type, ignoring parameters and case', () => {
    const containers = { spec: { containers: [{ name: 'side' }] } };
    const builtIn = { builtIn: true, schema: workloadSchema };
    expect((applyNonApplyPatch(MERGE_PATCH_MEDIA_TYPE, live, containers, builtIn).spec as JsonObject).containers).toEqual([{ name: 'side' }]);
    expect((applyNonApplyPatch('Application/Strategic-Merge-Patch+JSON; charset=utf-8', live, containers, builtIn).spec as JsonObject).containers).toEqual([
      { name: 'side' },
      { name: 'app', image: '1' },
    ]);
    const jsonPatched = applyNonApplyPatch(JSON_PATCH_MEDIA_TYPE, live, [{ op: 'remove', path: '/metadata/finalizers' }], builtIn);
    expect(jsonPatched.metadata).toEqual({ name: 'p' });
  });

  it('refuses strategic merge patch on a custom resource with 415 and the accepted types', () => {
    const error = refusal(() => applyNonApplyPatch(STRATEGIC_MERGE_PATCH_MEDIA_TYPE, live, {}, { builtIn: false }));
    expect(error.kind).toBe('UnsupportedMediaType');
    expect(error.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('refuses a media type that is not a non-apply patch type', () => {
    expect(refusal(() => applyNonApplyPatch('application/json', live, {}, { builtIn: true })).kind).toBe('UnsupportedMediaType');
    expect(refusal(() => applyNonApplyPatch('application/apply-patch+yaml', live, {}, { builtIn: true })).kind).toBe('UnsupportedMediaType');
  });
});

describe('patch media types', () => {
  it('knows which types it handles', () => {
    expect(isNonApplyPatchMediaType('application/merge-patch+json')).toBe(true);
    expect(isNonApplyPatchMediaType('application/json-patch+json; charset=utf-8')).toBe(true);
    expect(isNonApplyPatchMediaType('application/apply-patch+yaml')).toBe(false);
  });

  it('allows strategic merge patch for built-in kinds only', () => {
    expect(isStrategicMergeSupported({ builtIn: true })).toBe(true);
    expect(isStrategicMergeSupported({ builtIn: false })).toBe(false);
    expect(acceptedPatchMediaTypes({ builtIn: true })).toContain(STRATEGIC_MERGE_PATCH_MEDIA_TYPE);
  });
});

describe('parsePatchBody', () => {
  it('parses text and bytes', () => {
    expect(parsePatchBody('{"a":1}')).toEqual({ a: 1 });
    expect(parsePatchBody(new TextEncoder().encode('[{"op":"remove","path":"/a"}]'))).toEqual([{ op: 'remove', path: '/a' }]);
  });

  it('answers a body that is not JSON as BadRequest', () => {
    const error = refusal(() => parsePatchBody('{"a":'));
    expect(error.kind).toBe('BadRequest');
    expect(error.message).toMatch(/^the patch body is not valid JSON/);
  });
});
