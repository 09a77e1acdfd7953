import { isStatus, requestEntityTooLargeStatus, statusForCode, timeoutStatus } from './status';

describe('Status constructors', () => {
  it('use Kubernetes texts', () => {
    expect(statusForCode(404)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    expect(statusForCode(405, 'Method Not Allowed')).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    expect(requestEntityTooLargeStatus(3145728).message).toBe('Request entity too large: limit is 3145728');
    expect(timeoutStatus('x')).toMatchObject({ code: 504, reason: 'Timeout', message: 'Timeout: x' });
  });

  it('keep a specific message and map codes to reasons', () => {
    expect(statusForCode(404, 'pods "x" not found')).toMatchObject({ reason: 'NotFound', message: 'pods "x" not found' });
    expect(statusForCode(409, 'conflict')).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(statusForCode(500, 'boom')).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: boom' });
    expect(statusForCode(418, "I'm a Teapot")).toMatchObject({ reason: 'Unknown', message: "i'm a teapot" });
  });

  it('recognise a Status value', () => {
    expect(isStatus(statusForCode(400, 'bad'))).toBe(true);
    expect(isStatus({ kind: 'Other', code: 400, message: 'x' })).toBe(false);
    expect(isStatus(null)).toBe(false);
  });
});
