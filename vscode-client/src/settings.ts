/** The `proctor.*` settings, read once into a typed value: a bad value falls back to its default. */
import { getConfiguration, type ConfigurationChange } from './common/vscodeapi';

export const SECTION = 'proctor';

export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export type TraceLevel = 'off' | 'messages' | 'verbose';

export interface ProctorSettings {
    /** The interpreter and its leading arguments; empty: resolve it (Python extension, then `python3`). */
    interpreter: string[];
    importStrategy: ImportStrategy;
    debounceMs: number;
    select: string[];
    ignore: string[];
    trace: TraceLevel;
}

export const DEFAULTS: ProctorSettings = {
    interpreter: [],
    importStrategy: 'useBundled',
    debounceMs: 50,
    select: [],
    ignore: [],
    trace: 'off',
};

/** Settings that decide how the server process is started: a change restarts it. */
export const LAUNCH_KEYS = ['interpreter', 'importStrategy'] as const;
/** Settings the running server re-reads (`workspace/didChangeConfiguration`): no restart. */
export const LIVE_KEYS = ['debounceMs', 'select', 'ignore'] as const;

function stringList(value: unknown): string[] | undefined {
    if (typeof value === 'string') {
        return value.trim().length > 0 ? [value.trim()] : [];
    }
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
        return value.map((item) => item.trim()).filter((item) => item.length > 0);
    }
    return undefined;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
    return allowed.find((item) => item === value);
}

/** Pure: raw configuration values (as `get(key)` returns them) to settings. */
export function parseSettings(get: (key: string) => unknown): ProctorSettings {
    const debounce = get('debounceMs');
    return {
        interpreter: stringList(get('interpreter')) ?? DEFAULTS.interpreter,
        importStrategy:
            oneOf(get('importStrategy'), ['useBundled', 'fromEnvironment'] as const) ?? DEFAULTS.importStrategy,
        debounceMs:
            typeof debounce === 'number' && Number.isInteger(debounce) && debounce >= 0 && debounce <= 10_000
                ? debounce
                : DEFAULTS.debounceMs,
        select: stringList(get('select')) ?? DEFAULTS.select,
        ignore: stringList(get('ignore')) ?? DEFAULTS.ignore,
        trace: oneOf(get('trace.server'), ['off', 'messages', 'verbose'] as const) ?? DEFAULTS.trace,
    };
}

export function readSettings(folder: string | undefined): ProctorSettings {
    return parseSettings(getConfiguration(SECTION, folder));
}

/** What the server reads from initializationOptions and `workspace/configuration` (lsp_server/settings.py). */
export function serverSettings(settings: ProctorSettings): { debounceMs: number; select: string[]; ignore: string[] } {
    return { debounceMs: settings.debounceMs, select: settings.select, ignore: settings.ignore };
}

export type SettingsEffect = 'restart' | 'notify' | 'none';

/** Pure: whether a settings change needs a new server process, only a notification, or nothing. */
export function effectOf(change: ConfigurationChange, folder: string | undefined): SettingsEffect {
    const affects = (key: string): boolean => change.affectsConfiguration(`${SECTION}.${key}`, folder);
    if (LAUNCH_KEYS.some(affects)) {
        return 'restart';
    }
    return LIVE_KEYS.some(affects) ? 'notify' : 'none';
}
