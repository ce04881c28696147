// pino-pretty is optional: pretty lines when it is installed and chosen, JSON otherwise, and a
// named request for pretty lines without it says once what to install.
import type { DestinationStream } from 'pino';
import { describe, expect, it } from 'vitest';
import type { LogDestinationEnv } from '../../src/runtime/log-destination.js';
import { logDestination } from '../../src/runtime/log-destination.js';

const prettyStream: DestinationStream = { write: () => undefined };

function env(format: string | undefined, isTTY: boolean, installed: boolean) {
  const warnings: string[] = [];
  const asked: object[] = [];
  const e: LogDestinationEnv = {
    format,
    isTTY,
    loadPretty: () =>
      installed
        ? (options: object) => {
            asked.push(options);
            return prettyStream;
          }
        : undefined,
    warn: (line) => {
      warnings.push(line);
    },
  };
  return { e, warnings, asked };
}

describe('the default logger\'s destination', () => {
  it('is pino-pretty when LOG_FORMAT=pretty, or on a terminal with LOG_FORMAT unset, and it is installed', () => {
    for (const [format, tty] of [['pretty', false], [undefined, true]] as const) {
      const { e, warnings, asked } = env(format, tty, true);
      expect(logDestination(e)).toBe(prettyStream);
      expect(asked).toEqual([expect.objectContaining({ destination: 2, sync: true, colorize: tty })]);
      expect(warnings).toEqual([]);
    }
  });

  it('is JSON on a terminal without pino-pretty (a production install), with nothing said', () => {
    const { e, warnings } = env(undefined, true, false);
    expect(logDestination(e)).not.toBe(prettyStream);
    expect(warnings).toEqual([]);
  });

  it('is JSON when LOG_FORMAT=pretty and pino-pretty is not installed, saying once what to install', () => {
    const { e, warnings } = env('pretty', false, false);
    expect(logDestination(e)).not.toBe(prettyStream);
    expect(warnings).toEqual([expect.stringContaining('npm install --save-dev pino-pretty')]);
  });

  it('is JSON when LOG_FORMAT=json, even on a terminal with pino-pretty installed', () => {
    const { e, asked } = env('json', true, true);
    expect(logDestination(e)).not.toBe(prettyStream);
    expect(asked).toEqual([]);
  });
});
