// Toasts: at most 3 at once (the oldest gives way), each hidden after 5 s. Rendered with Polaris Toast
// (needs the Polaris Frame of the app shell).
import { Toast } from '@shopify/polaris';
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback } from 'react';
import { TOAST_HIDE_MS, TOASTS_MAX } from '../../contract/constants';
import { getAppStore } from '../lib/store';

export interface ToastOptions {
  error?: boolean;
  action?: { content: string; onAction: () => void };
  durationMs?: number;
}
export interface ToastItem extends ToastOptions {
  id: number;
  content: string;
}

export const toastsAtom = atom<ToastItem[]>([]);
let nextId = 1;

/** Appends a toast, keeping the newest TOASTS_MAX. */
export function pushToast(list: ToastItem[], item: ToastItem): ToastItem[] {
  return [...list, item].slice(-TOASTS_MAX);
}

/** Shows a toast from anywhere (non-React code included). Returns its id. */
export function showToast(content: string, opts: ToastOptions = {}): number {
  const id = nextId++;
  const store = getAppStore();
  store.set(toastsAtom, pushToast(store.get(toastsAtom), { id, content, ...opts }));
  return id;
}

export function useToast() {
  const set = useSetAtom(toastsAtom);
  const show = useCallback(
    (content: string, opts: ToastOptions = {}) => {
      const id = nextId++;
      set((list) => pushToast(list, { id, content, ...opts }));
      return id;
    },
    [set],
  );
  const dismiss = useCallback((id: number) => set((list) => list.filter((t) => t.id !== id)), [set]);
  return { show, dismiss };
}

export function ToastHost() {
  const toasts = useAtomValue(toastsAtom);
  const { dismiss } = useToast();
  return (
    <>
      {toasts.map((t) => (
        <Toast
          key={t.id}
          content={t.content}
          error={t.error}
          action={t.action}
          duration={t.durationMs ?? TOAST_HIDE_MS}
          onDismiss={() => dismiss(t.id)}
        />
      ))}
    </>
  );
}
