// Loaded only by TimeChart's dynamic import: uPlot and its stylesheet stay out of the store's first load.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartSeries, TimeTicks } from './chart-types';

export interface DrawSpec {
  /** Bucket starts, in seconds since the epoch, oldest first, evenly spaced. */
  x: number[];
  series: ChartSeries[];
  width: number;
  height: number;
  tick: (date: Date) => string;
  ticks: TimeTicks;
  leftValue: (value: number) => string;
  rightValue: (value: number) => string;
  /** The theme's colours, read from its CSS variables by the caller. */
  colors: Record<ChartSeries['color'], string> & { axis: string; grid: string };
}

export interface DrawnChart {
  setWidth(width: number): void;
  destroy(): void;
}

/** Whole numbers only on the count axes: "0.5 deliveries" is no tick. */
const INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

/**
 * Stacked series are drawn as running totals, the top of the stack first, so each lower series paints
 * over the one above it: uPlot has no stacking of its own, and this keeps its fast bar paths.
 */
function plotted(series: ChartSeries[]): ChartSeries[] {
  const running: number[] = [];
  const stacked = series.map((one) => {
    if (!one.stacked) return one;
    const values = one.values.map((value, index) => (running[index] = (running[index] ?? 0) + value));
    return { ...one, values };
  });
  const stack = stacked.filter((one) => one.stacked).reverse();
  return [...stack, ...stacked.filter((one) => !one.stacked)];
}

/** Room for one time label, in CSS pixels ("10:00 PM", "Nov 24"). */
const LABEL_WIDTH = 72;

/** uPlot's own time ticks fall every few hours whatever the label says: "Nov 17" three times over a week. */
export function timeSplits(x: number[], ticks: TimeTicks, plotWidth: number): number[] {
  const room = Math.max(1, Math.floor(plotWidth / LABEL_WIDTH));
  const last = ticks.strides[ticks.strides.length - 1] ?? 1;
  const stride = ticks.strides.find((candidate) => Math.ceil(x.length / candidate) <= room) ?? last * Math.ceil(x.length / (room * last));
  const aligned = ticks.align ? x.findIndex((time) => ticks.align!(new Date(time * 1000), stride)) : -1;
  const start = aligned >= 0 ? aligned : (x.length - 1) % stride;
  return x.filter((_time, index) => index >= start && (index - start) % stride === 0);
}

export function drawChart(into: HTMLElement, spec: DrawSpec): DrawnChart {
  let width = spec.width;
  const step = spec.x.length > 1 ? spec.x[1]! - spec.x[0]! : 3600;
  const series = plotted(spec.series);
  const hasRight = series.some((one) => one.axis === 'right');
  const bars = uPlot.paths.bars!({ size: [0.8, 48], align: 0 });
  const fromZero = (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [Math.min(0, min), Math.max(1, max)];
  const axis = { stroke: spec.colors.axis, grid: { stroke: spec.colors.grid, width: 1 }, ticks: { stroke: spec.colors.grid, width: 1 } };

  const options: uPlot.Options = {
    width,
    height: spec.height,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      // Bars (and the points of lines) stand in the middle of their bucket's slot, with half a slot of room at each end.
      x: { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] },
      left: { range: fromZero },
      right: { range: fromZero },
    },
    axes: [
      {
        ...axis,
        // The left axis and the right one (when there is one) take about 160 px of the width.
        splits: () => timeSplits(spec.x, spec.ticks, width - (hasRight ? 160 : 64)),
        values: (_u, splits) => splits.map((split) => spec.tick(new Date(split * 1000))),
      },
      { ...axis, scale: 'left', size: 64, incrs: INTEGER_STEPS, values: (_u, splits) => splits.map(spec.leftValue) },
      ...(hasRight ? [{ ...axis, scale: 'right', side: 1, size: 96, grid: { show: false }, values: (_u: uPlot, splits: number[]) => splits.map(spec.rightValue) }] : []),
    ],
    series: [
      {},
      ...series.map((one): uPlot.Series => {
        const color = spec.colors[one.color];
        return one.kind === 'bar'
          ? { label: one.label, scale: one.axis ?? 'left', stroke: color, fill: color, width: 0, paths: bars, points: { show: false } }
          : { label: one.label, scale: one.axis ?? 'left', stroke: color, width: 2, points: { show: true, size: 5, fill: color } };
      }),
    ],
  };
  const chart = new uPlot(options, [spec.x, ...series.map((one) => one.values)], into);
  return {
    setWidth: (next) => {
      width = next;
      chart.setSize({ width, height: spec.height });
    },
    destroy: () => chart.destroy(),
  };
}
