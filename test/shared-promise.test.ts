import { sharedUntilFailure, sharedWhileRunning } from '../src/shared-promise';

/** A start function that counts its calls and settles as the test says. */
function starter() {
  const calls: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  const start = () =>
    new Promise<string>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { calls, start };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('sharedWhileRunning', () => {
  test('concurrent callers share one start; once settled the next caller starts again', async () => {
    const kept = new Map<string, Promise<string>>();
    const { calls, start } = starter();
    const a = sharedWhileRunning(kept, 'k', start);
    const b = sharedWhileRunning(kept, 'k', start);
    expect(b).toBe(a);
    expect(calls).toHaveLength(1);
    calls[0].resolve('one');
    await expect(a).resolves.toBe('one');
    await settle();
    expect(kept.has('k')).toBe(false);
    const c = sharedWhileRunning(kept, 'k', start);
    expect(calls).toHaveLength(2);
    calls[1].reject(new Error('gone'));
    await expect(c).rejects.toThrow('gone');
    await settle();
    expect(kept.size).toBe(0);
  });
});

describe('sharedUntilFailure', () => {
  test('a result is kept; a failure is forgotten and the next caller tries again', async () => {
    const kept = new Map<string, Promise<string>>();
    const { calls, start } = starter();
    const failed = sharedUntilFailure(kept, 'k', start);
    calls[0].reject(new Error('first try failed'));
    await expect(failed).rejects.toThrow('first try failed');
    await settle();
    const retried = sharedUntilFailure(kept, 'k', start);
    expect(calls).toHaveLength(2);
    calls[1].resolve('two');
    await expect(retried).resolves.toBe('two');
    await settle();
    expect(sharedUntilFailure(kept, 'k', start)).toBe(retried);
    expect(calls).toHaveLength(2);
  });

  test('a failure does not forget a newer promise kept under the same key', async () => {
    const kept = new Map<string, Promise<string>>();
    const { calls, start } = starter();
    const old = sharedUntilFailure(kept, 'k', start);
    const newer = Promise.resolve('newer');
    kept.set('k', newer);
    calls[0].reject(new Error('old failed'));
    await expect(old).rejects.toThrow('old failed');
    await settle();
    expect(kept.get('k')).toBe(newer);
  });
});
