// /join/:token: an invite link opened by a signed-in person (signed-out people sign in or up first and come
// back here). Joining makes them an editor of the space and opens it; a used or expired link says so.
import { Banner, Button, Spinner } from '@shopify/polaris';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useParams } from 'wouter';
import { errorMessage } from '../../../lib/http';
import { PageFrame } from '../../../ui/page';
import { useSpaceActions } from '../api';

export function JoinPage() {
  const { token } = useParams<{ token: string }>();
  const actions = useSpaceActions();
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    actions.join(token).then(
      (r) => navigate(`/spaces/${encodeURIComponent(r.space_id)}`, { replace: true }),
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [actions, token, navigate]);
  return (
    <PageFrame title="Join a Teamspace">
      {error ? (
        <Banner tone="critical" title="You could not join this Teamspace">
          <p>{error}</p>
          <div style={{ marginTop: 8 }}>
            <Button onClick={() => navigate('/')}>Go to my projects</Button>
          </div>
        </Banner>
      ) : (
        <Spinner accessibilityLabel="Joining the Teamspace" />
      )}
    </PageFrame>
  );
}
