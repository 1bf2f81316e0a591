import { useEffect, useRef, useState } from 'react';
import type { ChartColor, ChartSeries, TimeTicks } from './chart-types';
import type { DrawnChart } from './draw-chart';

export interface TimeChartProps {
  /** Bucket starts (ISO 8601), oldest first. */
  times: string[];
  series: ChartSeries[];
  tick: (date: Date) => string;
  /** Made once (a module constant): a new object each render would redraw the chart. */
  ticks: TimeTicks;
  leftValue: (value: number) => string;
  rightValue?: (value: number) => string;
  height?: number;
}

type DrawState = 'loading' | 'drawn' | 'unavailable';

const COLOR_VARIABLES: Record<ChartColor | 'axis' | 'grid', string> = {
  success: '--success',
  danger: '--danger',
  accent: '--accent',
  warning: '--warning',
  ink: '--ink',
  axis: '--muted',
  grid: '--line',
};

/** The current theme's colours: canvas cannot read CSS variables itself. */
function themeColors(): Record<ChartColor | 'axis' | 'grid', string> {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string) => style.getPropertyValue(name).trim() || 'gray';
  return Object.fromEntries(Object.entries(COLOR_VARIABLES).map(([key, name]) => [key, read(name)])) as Record<ChartColor | 'axis' | 'grid', string>;
}

/** The theme the shell applied (PreferenceSwitches sets data-theme); charts redraw when it changes. */
function useThemeName(): string {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? 'light');
  useEffect(() => {
    const root = document.documentElement;
    const observer = new MutationObserver(() => setTheme(root.dataset.theme ?? 'light'));
    observer.observe(root, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

/** Where there is no 2D canvas (a DOM without one), the summary and the table stand in for the picture. */
function canDraw(): boolean {
  try {
    return document.createElement('canvas').getContext('2d') !== null;
  } catch {
    return false;
  }
}

/**
 * The picture of a time series: uPlot on a canvas, loaded on first use (its chunk stays out of the first
 * load), in the theme's colours, redrawn when the theme or the numbers change. Hidden from screen readers:
 * every chart has a text summary and a table of its numbers beside it.
 */
export function TimeChart({ times, series, tick, ticks, leftValue, rightValue = leftValue, height = 220 }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useThemeName();
  const [state, setState] = useState<DrawState>('loading');
  // The arrays are rebuilt on each render; their contents decide whether to redraw.
  const dataKey = JSON.stringify([times, series]);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    if (!canDraw()) return setState('unavailable');
    let cancelled = false;
    let chart: DrawnChart | undefined;
    let resize: ResizeObserver | undefined;
    const [plottedTimes, plottedSeries] = JSON.parse(dataKey) as [string[], ChartSeries[]];
    import('./draw-chart')
      .then(({ drawChart }) => {
        if (cancelled) return;
        chart = drawChart(element, {
          x: plottedTimes.map((time) => Date.parse(time) / 1000),
          series: plottedSeries,
          width: element.clientWidth || 600,
          height,
          tick,
          ticks,
          leftValue,
          rightValue,
          colors: themeColors(),
        });
        setState('drawn');
        if (typeof ResizeObserver !== 'undefined') {
          resize = new ResizeObserver(([entry]) => {
            if (entry && entry.contentRect.width > 0) chart?.setWidth(Math.floor(entry.contentRect.width));
          });
          resize.observe(element);
        }
      })
      .catch(() => {
        // A chunk that failed to load (an old tab after a deploy): the numbers are still there in words.
        if (!cancelled) setState('unavailable');
      });
    return () => {
      cancelled = true;
      resize?.disconnect();
      chart?.destroy();
    };
  }, [dataKey, theme, tick, ticks, leftValue, rightValue, height]);

  return (
    <figure className="chart" aria-hidden="true">
      <div ref={box} className="chart-canvas" data-chart-state={state} style={{ minHeight: state === 'unavailable' ? undefined : height }} />
      <ul className="chart-legend">
        {series.map((one) => (
          <li key={one.label}>
            <span className={`chart-swatch chart-${one.color}`} /> {one.label}
          </li>
        ))}
      </ul>
    </figure>
  );
}
