// A form's submit that calls the API: `busy` while it runs (controls disabled, a spinner), the failure's text in
// `error` (the form stays open and keeps what was typed), nothing when it succeeds.
import { useCallback, useState } from 'react';
import { errorMessage } from './http';

export function useAsyncAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Runs `fn`; answers whether it succeeded. */
  const run = useCallback(async (fn: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(errorMessage(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
