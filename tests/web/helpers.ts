// Shared helpers of the web tests.

/** A compact JWT (unsigned: the browser never verifies tokens) with the given payload. */
export function fakeJwt(payload: Record<string, unknown>): string {
  const enc = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(payload)}.c2ln`;
}

/** A fake window for the bridge: an EventTarget with a location, and a way to deliver messages. */
export function fakeFrame(origin = 'https://app.example') {
  const target = new EventTarget();
  const assigned: string[] = [];
  const self = {
    addEventListener: (t: 'message', l: (e: MessageEvent) => void) => target.addEventListener(t, l as EventListener),
    removeEventListener: (t: 'message', l: (e: MessageEvent) => void) => target.removeEventListener(t, l as EventListener),
    location: { href: `${origin}/embed/`, origin, assign: (u: string) => void assigned.push(u) },
  };
  function deliver(data: unknown, source: unknown, eventOrigin = 'https://admin.example') {
    const ev = new Event('message') as Event & { data: unknown; source: unknown; origin: string };
    Object.defineProperty(ev, 'data', { value: data });
    Object.defineProperty(ev, 'source', { value: source });
    Object.defineProperty(ev, 'origin', { value: eventOrigin });
    target.dispatchEvent(ev);
  }
  return { self, deliver, assigned };
}

/** A fake parent frame recording what the app posts. */
export function fakeParent() {
  const posted: { message: Record<string, unknown>; targetOrigin: string }[] = [];
  return {
    posted,
    postMessage(message: unknown, targetOrigin: string) {
      posted.push({ message: message as Record<string, unknown>, targetOrigin });
    },
    last() {
      return posted[posted.length - 1]?.message;
    },
  };
}
