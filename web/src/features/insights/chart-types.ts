/** The theme colours a series may take: each is a CSS variable of styles.css, in both themes. */
export type ChartColor = 'success' | 'danger' | 'accent' | 'warning';

export interface ChartSeries {
  label: string;
  values: number[];
  color: ChartColor;
  kind: 'bar' | 'line';
  /** The right axis has its own scale (money beside counts). */
  axis?: 'left' | 'right';
  /** Stacked series pile up in the order given, the first at the bottom. */
  stacked?: boolean;
}
