import { createColors } from 'picocolors';
import { createSpinner } from 'nanospinner';

/** Colour only on a terminal, and never when NO_COLOR is set to anything (https://no-color.org). */
function colourWanted(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export const colours = createColors(colourWanted(process.stdout, process.env));
export const errorColours = createColors(colourWanted(process.stderr, process.env));

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Left-aligned columns sized to their widest cell; colour is applied after padding so it does not skew widths. */
export function printTable(headers: string[], rows: string[][], paint: (column: number, cell: string, padded: string) => string = (_c, _v, p) => p): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[], painter: (i: number, v: string, p: string) => string) =>
    cells
      .map((cell, i) => painter(i, cell, i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(headers, (_i, _v, p) => colours.bold(p))}\n`);
  for (const row of rows) process.stdout.write(`${line(row, paint)}\n`);
}

export function paintStatus(status: string, text = status): string {
  if (status === 'SUCCEEDED' || status === 'APPROVED' || status === 'ENABLED') return colours.green(text);
  if (status === 'FAILED' || status === 'REJECTED' || status === 'DISABLED') return colours.red(text);
  if (status === 'RETRYING' || status === 'PENDING' || status === 'PENDING_REVIEW') return colours.yellow(text);
  return text;
}

export interface Progress {
  update(text: string): void;
  success(text: string): void;
  error(text: string): void;
  stop(): void;
}

/** A spinner on a terminal; elsewhere (pipes, CI, --json) nothing until the final line, which goes to stderr. */
export function progress(text: string, quiet = false): Progress {
  if (!process.stderr.isTTY || quiet) {
    return {
      update: () => undefined,
      success: (t) => void (quiet ? undefined : process.stderr.write(`${t}\n`)),
      error: (t) => void process.stderr.write(`${t}\n`),
      stop: () => undefined,
    };
  }
  const spinner = createSpinner(text, { stream: process.stderr, color: colourWanted(process.stderr, process.env) ? 'cyan' : undefined }).start();
  return {
    update: (t) => void spinner.update({ text: t }),
    success: (t) => void spinner.success({ text: t }),
    error: (t) => void spinner.error({ text: t }),
    stop: () => void spinner.stop(),
  };
}
