import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { LargeBodyPool } from './large-body-pool';

function response(): ServerResponse & EventEmitter {
  return new EventEmitter() as ServerResponse & EventEmitter;
}

describe('LargeBodyPool', () => {
  it('reuses the memory of a body whose response finished, and only then', () => {
    const pool = new LargeBodyPool(1024, 1024 * 1024);
    const first = pool.allocate(5000);
    expect(first.length).toBe(5000);
    const res = response();
    pool.releaseAfter(res, first);
    // Still being written: a second body gets memory of its own.
    const second = pool.allocate(5000);
    expect(second.buffer).not.toBe(first.buffer);
    res.emit('finish');
    const third = pool.allocate(4000);
    expect(third.length).toBe(4000);
    expect(third.buffer).toBe(first.buffer);
  });

  it('keeps neither small bodies, bodies of a response cut short, nor more than its bound', () => {
    const pool = new LargeBodyPool(1024, 8 * 1024 * 1024);
    const small = pool.allocate(100);
    const res = response();
    pool.releaseAfter(res, small);
    res.emit('finish');
    // Small bodies share Node's own pool, which is not this pool's to hand out.
    expect(pool.allocate(2000).buffer).not.toBe(small.buffer);

    const cut = pool.allocate(5000);
    const closed = response();
    pool.releaseAfter(closed, cut);
    closed.emit('close');
    expect(pool.allocate(5000).buffer).not.toBe(cut.buffer);

    const huge = pool.allocate(9 * 1024 * 1024);
    const done = response();
    pool.releaseAfter(done, huge);
    done.emit('finish');
    expect(pool.allocate(9 * 1024 * 1024).buffer).not.toBe(huge.buffer);
  });
});
