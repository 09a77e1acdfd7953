import { failureStatus, readBody, requestContext, requestUrl, StatusError, type ServerPart } from '@svc/apiserver';

/** Routes standing in for the resource handlers later work adds: a slow handler, failing handlers and a body reader. */
export const testRoutes: ServerPart = () => [
  {
    path: '/test/slow',
    methods: ['GET'],
    handler: async (req, res) => {
      const wanted = Number(requestUrl(req).searchParams.get('ms') ?? 0);
      const signal = requestContext(req).signal;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wanted);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      res.end(200, JSON.stringify({ sleptMs: wanted }), { 'Content-Type': 'application/json' });
    },
  },
  {
    path: '/test/fail',
    methods: ['GET'],
    handler: () => {
      throw new Error('the handler fell over');
    },
  },
  {
    path: '/test/conflict',
    methods: ['GET'],
    handler: () => {
      throw new StatusError(failureStatus(409, 'Conflict', 'Operation cannot be fulfilled: the object has been modified'));
    },
  },
  {
    path: '/test/echo',
    methods: ['POST'],
    handler: async (req, res) => {
      const body = await readBody(req);
      res.end(201, JSON.stringify({ bytes: body.length }), { 'Content-Type': 'application/json' });
    },
  },
];
