/** A V8 CPU profile (the inspector's Profiler.stop, or node --cpu-prof's .cpuprofile). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where a frame's code lives: a package (by its node_modules folder), a file of Plaza's build, a part
 * of Node itself, or V8's own (garbage collector, program).
 */
export function layerOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = url.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const [scope = '', name = ''] = url.slice(inModules + '/node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const inDist = url.indexOf('/server/dist/');
  if (inDist >= 0) return `plaza ${url.slice(inDist + '/server/dist/'.length)}`;
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length);
    if (/(^|\/)_?http/.test(module)) return 'node: http';
    if (/net|stream|tcp|socket/.test(module)) return 'node: net and streams';
    return `node: ${module.replace(/^internal\//, '')}`;
  }
  return url.slice(url.lastIndexOf('/') + 1);
}

/** Code every layer calls (events, the microtask queue, V8's builtins): its time belongs to whoever called it. */
const GENERIC = new Set(['(native)', 'node: events', 'node: process/task_queues', 'node: util', 'node: async_hooks', 'node: timers']);

/**
 * Each layer's share of the busy samples (idle left out): `own` (a sample counts once, for the innermost
 * frame on its stack that is not generic code: a layer's own code and the builtins, events and microtasks it
 * ran, so the column adds up to 100%), inclusive (a sample counts for every layer on its stack: with
 * Express's middleware chain a middleware's `next()` makes everything after it its child, so this column
 * overlaps) and self (the sample's innermost frame only).
 */
export function layerShares(profile: CpuProfile): { layer: string; own: number; inclusive: number; self: number }[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  const owned = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') return;
    const weight = profile.timeDeltas[i] ?? 0;
    busy += weight;
    const own = layerOf(leaf.callFrame.url, leaf.callFrame.functionName);
    self.set(own, (self.get(own) ?? 0) + weight);
    const seen = new Set<string>();
    let owner: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.functionName === '(root)') continue;
      const layer = layerOf(frame.url, frame.functionName);
      seen.add(layer);
      if (owner === undefined && !GENERIC.has(layer)) owner = layer;
    }
    owner ??= own;
    owned.set(owner, (owned.get(owner) ?? 0) + weight);
    for (const layer of seen) inclusive.set(layer, (inclusive.get(layer) ?? 0) + weight);
  });
  return [...inclusive]
    .map(([layer, time]) => ({ layer, own: (owned.get(layer) ?? 0) / busy, inclusive: time / busy, self: (self.get(layer) ?? 0) / busy }))
    .sort((a, b) => b.own - a.own || b.inclusive - a.inclusive);
}

/** The layers as a markdown table, largest first; `limit` rows. */
export function summariseProfile(profile: CpuProfile, limit = 30): string {
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  return [
    '| Layer (where the code lives) | Own + builtins it ran (adds up to 100%) | Self + children (overlaps) | Self |',
    '|---|---|---|---|',
    ...layerShares(profile)
      .slice(0, limit)
      .map((x) => `| ${x.layer} | ${percent(x.own)} | ${percent(x.inclusive)} | ${percent(x.self)} |`),
  ].join('\n');
}

/** The functions with the most self time (the sample's innermost frame), idle left out: `limit` rows as a markdown table. */
export function summariseFunctions(profile: CpuProfile, limit = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    const weight = profile.timeDeltas[i] ?? 0;
    busy += weight;
    const where = url ? `${layerOf(url, functionName)}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + weight);
  });
  return [
    '| Function (self time) | Share of busy samples |',
    '|---|---|',
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([key, time]) => `| ${key} | ${((time / busy) * 100).toFixed(1)}% |`),
  ].join('\n');
}
