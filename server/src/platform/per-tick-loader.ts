import DataLoader from 'dataloader';

/**
 * Turns "load one by key" into one load per turn of the event loop, with DataLoader: GraphQL resolves
 * a field for every item of a list before any of them waits, so a page of 50 deliveries asking for
 * their attempts becomes one query instead of 50. Nothing is cached past the batch (`cache: false`),
 * so a batch never serves anything older than its own query and a long-lived service holds no rows.
 */
export function perTickLoader<Key, Value>(loadMany: (keys: Key[]) => Promise<Map<Key, Value>>, absent: () => Value): (key: Key) => Promise<Value> {
  const loader = new DataLoader<Key, Value>(
    async (keys) => {
      // Without a cache DataLoader passes a key once per caller; the query needs it once.
      const loaded = await loadMany([...new Set(keys)]);
      return keys.map((key) => loaded.get(key) ?? absent());
    },
    {
      cache: false,
      // After the microtasks of this turn (DataLoader's default may dispatch before a resolver that awaited first has asked).
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    },
  );
  return (key) => loader.load(key);
}
