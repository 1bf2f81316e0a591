import type { ReactNode } from 'react';
import { useT } from '../../i18n/i18n';

interface ChartTableProps {
  caption: string;
  columns: string[];
  /** Cells already formatted for the reader's language; the first one names the row. */
  rows: ReactNode[][];
}

/** A chart's numbers as a table, for screen readers and anyone who wants the figures: closed until asked for. */
export function ChartTable({ caption, columns, rows }: ChartTableProps) {
  const t = useT();
  return (
    <details className="chart-table">
      <summary>{t('insights.showTable')}</summary>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([head, ...cells], index) => (
            <tr key={index}>
              <th scope="row">{head}</th>
              {cells.map((cell, cellIndex) => (
                <td key={cellIndex}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
