// Snackbars: at most 2 at once, at the top centre, variant 'error' unless told otherwise.
import { Banner, Text } from '@shopify/polaris';
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect } from 'react';
import { SNACKBARS_MAX } from '../../contract/constants';
import { getAppStore } from '../lib/store';

export type SnackbarVariant = 'error' | 'success' | 'info' | 'warning';
export interface SnackbarOptions {
  variant?: SnackbarVariant;
  /** Auto-hide after this many ms (default 5000; 0 keeps it until closed). */
  durationMs?: number;
}
export interface SnackbarItem {
  id: number;
  message: string;
  variant: SnackbarVariant;
  durationMs: number;
}

export const SNACKBAR_DEFAULT_MS = 5000;
export const snackbarsAtom = atom<SnackbarItem[]>([]);
let nextId = 1;

export function pushSnackbar(list: SnackbarItem[], item: SnackbarItem): SnackbarItem[] {
  return [...list, item].slice(-SNACKBARS_MAX);
}

function makeItem(message: string, opts: SnackbarOptions): SnackbarItem {
  return { id: nextId++, message, variant: opts.variant ?? 'error', durationMs: opts.durationMs ?? SNACKBAR_DEFAULT_MS };
}

/** Shows a snackbar from anywhere. @internal */
export function showSnackbar(message: string, opts: SnackbarOptions = {}): number {
  const item = makeItem(message, opts);
  const store = getAppStore();
  store.set(snackbarsAtom, pushSnackbar(store.get(snackbarsAtom), item));
  return item.id;
}

export function useSnackbar() {
  const set = useSetAtom(snackbarsAtom);
  const show = useCallback(
    (message: string, opts: SnackbarOptions = {}) => {
      const item = makeItem(message, opts);
      set((list) => pushSnackbar(list, item));
      return item.id;
    },
    [set],
  );
  const dismiss = useCallback((id: number) => set((list) => list.filter((s) => s.id !== id)), [set]);
  return { show, dismiss };
}

const TONE = { error: 'critical', success: 'success', info: 'info', warning: 'warning' } as const;

function Snackbar({ item, onClose }: { item: SnackbarItem; onClose: () => void }) {
  useEffect(() => {
    if (item.durationMs <= 0) return;
    const t = setTimeout(onClose, item.durationMs);
    return () => clearTimeout(t);
  }, [item.id, item.durationMs, onClose]);
  return (
    // Polaris Banner carries the live role (alert for error/warning, status otherwise).
    <div className="ds-snackbar" data-variant={item.variant}>
      <Banner tone={TONE[item.variant]} onDismiss={onClose}>
        <Text as="p">{item.message}</Text>
      </Banner>
    </div>
  );
}

export function SnackbarHost() {
  const items = useAtomValue(snackbarsAtom);
  const { dismiss } = useSnackbar();
  if (items.length === 0) return null;
  return (
    <div className="ds-snackbars" aria-live="polite">
      {items.map((s) => (
        <Snackbar key={s.id} item={s} onClose={() => dismiss(s.id)} />
      ))}
    </div>
  );
}
