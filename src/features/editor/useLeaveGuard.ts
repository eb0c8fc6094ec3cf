// Leaving the editor with unsaved changes asks first (spec section 2 discard texts): in-app links,
// the browser's back/forward buttons, and reload/close (the browser's own prompt).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { routerBase } from '../../lib/page';

export interface LeaveGuard {
  /** Props for DiscardChangesModal. */
  open: boolean;
  onCancel: () => void;
  onDiscard: () => void;
  /** "Save and leave": saves, then goes on (stays when the save fails). Absent without an onSave. */
  onSaveAndLeave?: () => void;
  /** Asks before running `go` when there are unsaved changes (for the page's own back buttons). */
  confirmThen: (go: () => void) => void;
}

function inAppPath(url: URL): string | null {
  if (url.origin !== window.location.origin) return null;
  const base = routerBase();
  if (base && !url.pathname.startsWith(base)) return null;
  return (base ? url.pathname.slice(base.length) || '/' : url.pathname) + url.search + url.hash;
}

export function useLeaveGuard(when: boolean, onDiscard?: () => void, onSave?: () => Promise<boolean>): LeaveGuard {
  const [pending, setPending] = useState<(() => void) | null>(null);
  const [, navigate] = useLocation();
  const whenRef = useRef(when);
  whenRef.current = when;

  useEffect(() => {
    if (!when) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
      const url = new URL(a.href, window.location.href);
      const path = inAppPath(url);
      if (path === null) return;
      const here = window.location.pathname + window.location.search;
      if (url.pathname + url.search === here) return;
      e.preventDefault();
      e.stopPropagation();
      setPending(() => () => navigate(path));
    };
    const editorUrl = window.location.href;
    const popstate = (e: PopStateEvent) => {
      if (!whenRef.current) return;
      const target = new URL(window.location.href);
      const path = inAppPath(target);
      if (path === null || target.href === editorUrl) return;
      e.stopImmediatePropagation();
      history.pushState(history.state, '', editorUrl);
      setPending(() => () => navigate(path));
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    window.addEventListener('popstate', popstate, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
      window.removeEventListener('popstate', popstate, true);
    };
  }, [when, navigate]);

  const confirmThen = useCallback((go: () => void) => {
    if (whenRef.current) setPending(() => go);
    else go();
  }, []);

  return {
    open: pending !== null,
    onCancel: () => setPending(null),
    onDiscard: () => {
      const go = pending;
      setPending(null);
      onDiscard?.();
      whenRef.current = false;
      go?.();
    },
    onSaveAndLeave: onSave
      ? () => {
          const go = pending;
          setPending(null);
          void onSave().then((ok) => {
            if (!ok) return;
            whenRef.current = false;
            go?.();
          });
        }
      : undefined,
    confirmThen,
  };
}
