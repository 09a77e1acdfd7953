import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTypeInvalid } from './field-errors';
import { fieldPath } from './field-path';
import type { Status } from './meta/status';
import { StatusError } from './status';
import {
  newAlreadyExists,
  newApplyConflict,
  newBadRequest,
  newConflict,
  newContinueExpired,
  newForbidden,
  newGenerateNameConflict,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  newTooOldResourceVersion,
  newUnauthorized,
  newUnsupportedMediaType,
  OPTIMISTIC_LOCK_ERROR_MESSAGE,
  CONTINUE_EXPIRED_MESSAGE,
  INCONSISTENT_CONTINUE_MESSAGE,
} from './status-errors';

function expectStatus(err: StatusError, code: number, reason: string, message: string): Status {
  expect(err).toBeInstanceOf(StatusError);
  expect(err).toBeInstanceOf(Error);
  expect(err.message).toBe(message);
  expect(err.code).toBe(code);
  expect(err.reason).toBe(reason);
  expect(err.status).toMatchObject({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message });
  return err.status;
}

describe('Status constructors', () => {
  it('NotFound, core and grouped', () => {
    const core = expectStatus(newNotFound('pods', 'x'), 404, 'NotFound', 'pods "x" not found');
    expect(core.details).toEqual({ name: 'x', kind: 'pods' });
    const grouped = expectStatus(newNotFound({ group: 'apps', resource: 'deployments' }, 'web'), 404, 'NotFound', 'deployments.apps "web" not found');
    expect(grouped.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    expectStatus(newNotFound('deployments.apps', 'web'), 404, 'NotFound', 'deployments.apps "web" not found');
  });

  it('serializes with the keys in Kubernetes order and no stack', () => {
    const json = JSON.stringify(newNotFound('pods', 'x'));
    expect(json).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404}',
    );
  });

  it('AlreadyExists and the generate-name conflict', () => {
    expectStatus(newAlreadyExists('configmaps', 'c'), 409, 'AlreadyExists', 'configmaps "c" already exists');
    const s = expectStatus(
      newGenerateNameConflict('pods', 'web-abcde', 1),
      409,
      'AlreadyExists',
      'pods "web-abcde" already exists, the server was not able to generate a unique name for the object',
    );
    expect(s.details?.retryAfterSeconds).toBe(1);
  });

  it('Conflict', () => {
    expectStatus(
      newConflict('pods', 'x', OPTIMISTIC_LOCK_ERROR_MESSAGE),
      409,
      'Conflict',
      'Operation cannot be fulfilled on pods "x": the object has been modified; please apply your changes to the latest version and try again',
    );
    expectStatus(
      newConflict('leases.coordination.svc.io', 'l', new Error('held')),
      409,
      'Conflict',
      'Operation cannot be fulfilled on leases.coordination.svc.io "l": held',
    );
    const apply = expectStatus(
      newApplyConflict([{ reason: 'FieldManagerConflict', message: 'conflict with "other"', field: '.spec.replicas' }], 'Apply failed with 1 conflict'),
      409,
      'Conflict',
      'Apply failed with 1 conflict',
    );
    expect(apply.details?.causes).toHaveLength(1);
  });

  it('Invalid lists every field error as a cause and in the message', () => {
    const containers = fieldPath('spec', 'containers');
    const s = expectStatus(
      newInvalid('Pod', 'x', [
        fieldRequired(containers.index(0).child('name'), ''),
        fieldInvalid(containers.index(0).child('image'), 'Bad Image', 'must be lower case'),
        fieldNotSupported(fieldPath('spec', 'restartPolicy'), 'Sometimes', ['Always', 'OnFailure', 'Never']),
        fieldDuplicate(containers.index(1).child('name'), 'a'),
        fieldTooLong(fieldPath('metadata', 'annotations'), 262144),
        fieldForbidden(fieldPath('spec', 'nodeName'), 'may not be changed'),
        fieldTypeInvalid(fieldPath('spec', 'replicas'), 'three', 'must be an integer'),
      ]),
      422,
      'Invalid',
      'Pod "x" is invalid: [spec.containers[0].name: Required value, spec.containers[0].image: Invalid value: "Bad Image": must be lower case, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", spec.containers[1].name: Duplicate value: "a", metadata.annotations: Too long: may not be more than 262144 bytes, spec.nodeName: Forbidden: may not be changed, spec.replicas: Invalid value: "three": must be an integer]',
    );
    expect(s.details).toEqual({
      name: 'x',
      kind: 'Pod',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].name' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: "Bad Image": must be lower case', field: 'spec.containers[0].image' },
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
          field: 'spec.restartPolicy',
        },
        { reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'spec.containers[1].name' },
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes', field: 'metadata.annotations' },
        { reason: 'FieldValueForbidden', message: 'Forbidden: may not be changed', field: 'spec.nodeName' },
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "three": must be an integer', field: 'spec.replicas' },
      ],
    });
  });

  it('Invalid with one error prints it bare, with a group qualifies the kind, with none has no colon', () => {
    expectStatus(
      newInvalid({ group: 'apps', kind: 'Deployment' }, 'web', [fieldRequired('spec.selector', 'selector is required')]),
      422,
      'Invalid',
      'Deployment.apps "web" is invalid: spec.selector: Required value: selector is required',
    );
    expectStatus(newInvalid('Pod', 'x', []), 422, 'Invalid', 'Pod "x" is invalid');
  });

  it('BadRequest, Gone and Expired', () => {
    expectStatus(newBadRequest('bad things'), 400, 'BadRequest', 'bad things');
    expectStatus(newGone('gone'), 410, 'Gone', 'gone');
    expectStatus(newResourceExpired('expired'), 410, 'Expired', 'expired');
    expectStatus(newTooOldResourceVersion(5, 10), 410, 'Expired', 'too old resource version: 5 (10)');
    expectStatus(newContinueExpired(), 410, 'Expired', CONTINUE_EXPIRED_MESSAGE);
    const inconsistent = expectStatus(newContinueExpired('tok'), 410, 'Expired', INCONSISTENT_CONTINUE_MESSAGE);
    expect(inconsistent.metadata).toEqual({ continue: 'tok' });
  });

  it('TooManyRequests carries retryAfterSeconds', () => {
    const s = expectStatus(
      newTooManyRequests('Too many requests, please try again later.', 1),
      429,
      'TooManyRequests',
      'Too many requests, please try again later.',
    );
    expect(s.details).toEqual({ retryAfterSeconds: 1 });
  });

  it('Timeout, and the too-large resource version form', () => {
    expectStatus(newTimeout('request did not complete within 60s', 0), 504, 'Timeout', 'Timeout: request did not complete within 60s');
    const s = expectStatus(newTooLargeResourceVersion(15, 10, 1), 504, 'Timeout', 'Timeout: Too large resource version: 15, current: 10');
    expect(s.details).toEqual({ causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
  });

  it('ServerTimeout', () => {
    const s = expectStatus(
      newServerTimeout('pods', 'list', 2),
      500,
      'ServerTimeout',
      'The list operation against pods could not be completed at this time, please try again.',
    );
    expect(s.details).toEqual({ name: 'list', kind: 'pods', retryAfterSeconds: 2 });
  });

  it('content negotiation failures', () => {
    expectStatus(
      newNotAcceptable(['application/json', 'application/vnd.svc.protobuf']),
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/vnd.svc.protobuf',
    );
    expectStatus(
      newUnsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
    );
  });

  it('MethodNotAllowed', () => {
    expectStatus(newMethodNotSupported('bindings', 'list'), 405, 'MethodNotAllowed', 'list is not supported on resources of kind "bindings"');
  });

  it('Forbidden in its three forms', () => {
    expectStatus(newForbidden('secrets', 's', 'no access'), 403, 'Forbidden', 'secrets "s" is forbidden: no access');
    expectStatus(newForbidden('secrets', '', new Error('no access')), 403, 'Forbidden', 'secrets is forbidden: no access');
    expectStatus(newForbidden(undefined, '', 'no access'), 403, 'Forbidden', 'forbidden: no access');
  });

  it('Unauthorized', () => {
    expectStatus(newUnauthorized(), 401, 'Unauthorized', 'not authorized');
    expectStatus(newUnauthorized('token expired'), 401, 'Unauthorized', 'token expired');
  });

  it('RequestEntityTooLarge', () => {
    expectStatus(newRequestEntityTooLarge('limit is 3145728'), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  });

  it('InternalError uses the message only, never the stack', () => {
    const err = new Error('disk full');
    const s = expectStatus(newInternalError(err), 500, 'InternalError', 'Internal error occurred: disk full');
    expect(s.details).toEqual({ causes: [{ message: 'disk full' }] });
    expect(JSON.stringify(newInternalError(err))).not.toContain('at ');
    expectStatus(newInternalError('boom'), 500, 'InternalError', 'Internal error occurred: boom');
  });

  it('ServiceUnavailable', () => {
    expectStatus(newServiceUnavailable('the server is shutting down'), 503, 'ServiceUnavailable', 'the server is shutting down');
  });

  it('quotes names as Go does', () => {
    expect(newNotFound('pods', 'a"b\\c\n').message).toBe('pods "a\\"b\\\\c\\n" not found');
  });
});

describe('newInvalid with very many errors', () => {
  it('lists the first hundred and says how many more there were', () => {
    const errors = Array.from({ length: 250 }, (_, i) => fieldInvalid(`data[k${i}]`, `k${i}`, 'bad key'));
    const status = newInvalid({ group: '', kind: 'ConfigMap' }, 'x', errors).status;
    expect(status.details?.causes).toHaveLength(101);
    expect(status.message).toMatch(/^ConfigMap "x" is invalid: \[data\[k0\]: Invalid value: "k0": bad key, .*, and 150 more errors\]$/);
  });
});
