/**
 * Turns "load one by key" into one load per turn of the event loop: GraphQL resolves a field for
 * every item of a list before any of them waits, so a page of 50 deliveries asking for their
 * attempts becomes one query instead of 50. Nothing is cached past the turn (each turn reads
 * afresh), so a batch never serves anything older than its own query.
 */
export function batchByTick<Key, Value>(loadMany: (keys: Key[]) => Promise<Map<Key, Value>>, absent: () => Value): (key: Key) => Promise<Value> {
  let waiting = new Map<Key, { resolve: (value: Value) => void; reject: (err: unknown) => void }[]>();
  let scheduled = false;

  const flush = async () => {
    const batch = waiting;
    waiting = new Map();
    scheduled = false;
    try {
      const loaded = await loadMany([...batch.keys()]);
      for (const [key, callers] of batch) for (const { resolve } of callers) resolve(loaded.get(key) ?? absent());
    } catch (err) {
      for (const callers of batch.values()) for (const { reject } of callers) reject(err);
    }
  };

  return (key) =>
    new Promise<Value>((resolve, reject) => {
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      if (!scheduled) {
        scheduled = true;
        // After the microtasks of this turn: every resolver of the list has asked by then.
        setImmediate(() => void flush());
      }
    });
}
